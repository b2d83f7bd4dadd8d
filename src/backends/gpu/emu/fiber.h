// User-space fibers for the emulated GPU: one per thread of a block, so that a thread can stop
// at a barrier and the next one run, all on one host thread. The switch is a few x86-64
// instructions of our own (callee-saved registers and the stack pointer; glibc's swapcontext
// makes a system call each time). Stacks are mapped once with a guard page under each.
#pragma once

#include <cstddef>

// Under ThreadSanitizer the fibers of a block are, to TSan, the host thread that runs them: it
// sees their accesses one fiber at a time, in the order they run, so races between host threads
// (the pool's, the callers') are checked and the fibers of one block need no annotation. TSan's
// shadow call stack is per thread, though: the frames a finished fiber abandons (its entry and
// its last suspend(), never returned from) would pile up there block after block, so those two
// functions are not instrumented.
#if defined(__SANITIZE_THREAD__)
#define HI_EMU_NO_TSAN __attribute__((no_sanitize("thread")))
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define HI_EMU_NO_TSAN __attribute__((no_sanitize("thread")))
#endif
#endif
#ifndef HI_EMU_NO_TSAN
#define HI_EMU_NO_TSAN
#endif

namespace hi::gpu::emu {

class Fiber {
 public:
  using Entry = void (*)(void* arg);

  Fiber() = default;
  Fiber(const Fiber&) = delete;
  Fiber& operator=(const Fiber&) = delete;

  // Gives the fiber a stack of `stack_bytes` (once) and makes its next resume() start entry(arg)
  // from the top of the stack, abandoning whatever it was doing (its frames are dropped without
  // destructors: kernel code keeps no owning objects).
  void reset(size_t stack_bytes, Entry entry, void* arg);
  // Runs the fiber until it calls suspend(); returns then. Called from the host thread's own
  // stack (the scheduler), never from another fiber.
  void resume();
  // From inside the fiber: back to the resume() that ran it.
  HI_EMU_NO_TSAN void suspend();

  ~Fiber();

 private:
  void* stack_ = nullptr;  // the mapping, guard page included
  size_t mapped_ = 0;
  void* fiber_sp_ = nullptr;
  void* host_sp_ = nullptr;
};

}  // namespace hi::gpu::emu
