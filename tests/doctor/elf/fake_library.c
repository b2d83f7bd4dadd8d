/* Stands in for every GPU library of the fake roots (their files hold "placeholder library" in
   the source tree): the doctor checks that a library is an ELF shared object of this machine, so
   the copied roots get this real one, linked by the toolchain for the machine the tests run on. */
int hi_fake_library(void) { return 0; }
