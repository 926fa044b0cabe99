// analyze: layer-level roofline analysis of an ONNX model on a device.
// Everything but argv handling lives in run.cc (testable in-process).
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include "tools/analyze/run.h"

namespace {

// One run allocates tens to hundreds of MB in small pieces and frees them at
// exit; most of its time went to first-touch page faults (one per 4 KiB
// page, each a trip through the kernel, on a VM a costly one; bench/README,
// issue 16). So the heap keeps what is freed (the protobuf parse's memory is
// reused by the analysis instead of being unmapped and faulted in anew), and
// its first GiB is reserved up front on transparent huge pages: a fault maps
// 2 MiB. Only address space is reserved; resident memory grows with what is
// touched, in 2 MiB steps. What glibc.malloc.hugetlb=1 does, for this
// program alone.
void TuneHeapForOneRun() {
  constexpr size_t kReserve = size_t{1} << 30;
  constexpr size_t kStep = size_t{64} << 20;
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kStep));
  mallopt(M_TRIM_THRESHOLD, INT_MAX);  // never: the run ends soon
  mallopt(M_TOP_PAD, static_cast<int>(kReserve));
  const auto begin = reinterpret_cast<uintptr_t>(sbrk(0));
  // Grows the heap by M_TOP_PAD now (volatile: the pair is not elided).
  void* volatile grow = std::malloc(size_t{1} << 20);
  std::free(grow);
  mallopt(M_TOP_PAD, static_cast<int>(kStep));  // later growth
  const auto end = reinterpret_cast<uintptr_t>(sbrk(0));
  const uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  if (begin == static_cast<uintptr_t>(-1) || end <= first) return;
  madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
}

// Ends the process once the output is flushed, without the exit handlers
// and static destructors of the program and its libraries: the kernel takes
// the memory back at once. Sanitizer builds exit normally, so that
// LeakSanitizer still checks at exit.
[[noreturn]] void ExitWithoutTeardown(int status) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  _exit(status);
}

bool SanitizerBuild() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#endif
#endif
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  TuneHeapForOneRun();
  std::vector<std::string> args(argv + 1, argv + argc);
  // A successful run ends inside AnalyzeMain, before its state is freed.
  const bool teardown = SanitizerBuild();
  const int status = ridgeline::tools::analyze::AnalyzeMain(
      args, std::cout, std::cerr,
      teardown ? ridgeline::tools::analyze::AtFinish()
               : [](int status) { ExitWithoutTeardown(status); });
  if (!teardown) ExitWithoutTeardown(status);
  return status;
}
