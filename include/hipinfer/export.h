// Which declarations the shared library exports. hipinfer is compiled with hidden visibility, so
// only what the public headers declare between HI_PUBLIC_BEGIN and HI_PUBLIC_END (and the C API's
// HI_C_EXPORT functions) is visible to programs that link libhipinfer.so; cmake/hipinfer.map
// then keeps everything else (inlined standard-library code among it) out of its symbol table.
#pragma once

#if defined(__GNUC__)
#define HI_PUBLIC_BEGIN _Pragma("GCC visibility push(default)")
#define HI_PUBLIC_END _Pragma("GCC visibility pop")
#else
#define HI_PUBLIC_BEGIN
#define HI_PUBLIC_END
#endif
