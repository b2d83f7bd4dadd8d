/* Stand-in for a framework's shared object (libtorch_cpu.so and friends): linked against the fake
 * libstdc++ and using its newest symbol, so the linker records DT_NEEDED libstdc++.so.6 and a
 * version need on GLIBCXX_3.4.30, exactly as a real C++ library built with GCC 12 does. */
extern int hi_fake_newest_glibcxx(void);
int hi_fake_consumer(void) { return hi_fake_newest_glibcxx(); }
