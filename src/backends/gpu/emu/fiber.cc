#include "backends/gpu/emu/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <new>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace hi::gpu::emu {
namespace {

void* map_stack(size_t bytes, size_t* mapped) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  *mapped = (bytes + page - 1) / page * page + page;
  void* p = mmap(nullptr, *mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED) throw std::bad_alloc();
  // The lowest page stays unmapped for access: a kernel that overflows its stack faults there
  // instead of writing into the next thread's stack.
  mprotect(p, page, PROT_NONE);
  return p;
}

}  // namespace
}  // namespace hi::gpu::emu

#if defined(__x86_64__)

// hi_emu_switch(save, load): pushes the callee-saved registers on the current stack, stores the
// stack pointer in *save, loads `load` as the stack pointer and pops the registers saved there.
// hi_emu_fiber_start: where a fresh fiber's first switch "returns" to; r12 holds the entry and
// r13 its argument (placed in the initial frame by reset()).
asm(R"(
  .text
  .globl hi_emu_switch
  .type hi_emu_switch,@function
hi_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size hi_emu_switch, .-hi_emu_switch

  .globl hi_emu_fiber_start
  .type hi_emu_fiber_start,@function
hi_emu_fiber_start:
  subq $8, %rsp
  movq %r13, %rdi
  call *%r12
  ud2
  .size hi_emu_fiber_start, .-hi_emu_fiber_start
)");

extern "C" void hi_emu_switch(void** save, void* load);
extern "C" void hi_emu_fiber_start();

namespace hi::gpu::emu {

void Fiber::reset(size_t stack_bytes, Entry entry, void* arg) {
  if (!stack_) stack_ = map_stack(stack_bytes, &mapped_);
  auto top = (reinterpret_cast<uintptr_t>(stack_) + mapped_) & ~uintptr_t{15};
  auto* frame = reinterpret_cast<void**>(top - 16);  // 16-byte aligned: the "return address"
  frame[0] = reinterpret_cast<void*>(&hi_emu_fiber_start);
  // Below it, the six registers hi_emu_switch pops: r15, r14, r13, r12, rbx, rbp.
  void** regs = frame - 6;
  regs[0] = nullptr;
  regs[1] = nullptr;
  regs[2] = arg;                                // r13
  regs[3] = reinterpret_cast<void*>(entry);     // r12
  regs[4] = nullptr;
  regs[5] = nullptr;
  fiber_sp_ = regs;
}

void Fiber::resume() { hi_emu_switch(&host_sp_, fiber_sp_); }

void Fiber::suspend() { hi_emu_switch(&fiber_sp_, host_sp_); }

Fiber::~Fiber() {
  if (stack_) munmap(stack_, mapped_);
}

}  // namespace hi::gpu::emu

#else  // ucontext

namespace hi::gpu::emu {

struct Contexts {
  ucontext_t fiber, host;
};

void Fiber::reset(size_t stack_bytes, Entry entry, void* arg) {
  if (!stack_) {
    stack_ = map_stack(stack_bytes, &mapped_);
    context_ = new Contexts();
  }
  auto* c = static_cast<Contexts*>(context_);
  getcontext(&c->fiber);
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  c->fiber.uc_stack.ss_sp = static_cast<char*>(stack_) + page;
  c->fiber.uc_stack.ss_size = mapped_ - page;
  c->fiber.uc_link = nullptr;
  // makecontext passes ints; split the pointers into halves.
  makecontext(&c->fiber, reinterpret_cast<void (*)()>(+[](unsigned e_hi, unsigned e_lo, unsigned a_hi, unsigned a_lo) {
                auto e = reinterpret_cast<Entry>((uintptr_t{e_hi} << 32) | e_lo);
                e(reinterpret_cast<void*>((uintptr_t{a_hi} << 32) | a_lo));
                std::abort();
              }),
              4, static_cast<unsigned>(reinterpret_cast<uintptr_t>(entry) >> 32),
              static_cast<unsigned>(reinterpret_cast<uintptr_t>(entry)), static_cast<unsigned>(reinterpret_cast<uintptr_t>(arg) >> 32),
              static_cast<unsigned>(reinterpret_cast<uintptr_t>(arg)));
}

void Fiber::resume() {
  auto* c = static_cast<Contexts*>(context_);
  swapcontext(&c->host, &c->fiber);
}

void Fiber::suspend() {
  auto* c = static_cast<Contexts*>(context_);
  swapcontext(&c->fiber, &c->host);
}

Fiber::~Fiber() {
  if (stack_) munmap(stack_, mapped_);
  delete static_cast<Contexts*>(context_);
}

}  // namespace hi::gpu::emu

#endif
