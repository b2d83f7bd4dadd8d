/* Stand-in for libstdc++ in the doctor's fake roots: the version script built around it (see
 * ../CMakeLists.txt) gives it the GLIBCXX_ and CXXABI_ version definitions a real one has, up to
 * a chosen GLIBCXX_3.4.N. The newest version carries this one symbol. */
int hi_fake_newest_glibcxx(void) { return 0; }
