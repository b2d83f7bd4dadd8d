/* Stand-in for libonnxruntime_providers_cuda.so: needs libcudnn.so.8 (a stub with that soname). */
extern int hi_fake_cudnn(void);
int hi_fake_provider(void) { return hi_fake_cudnn(); }
