/* Stub whose only job is to carry the soname libcudnn.so.8 for fake_provider.c to link against. */
int hi_fake_cudnn(void) { return 0; }
