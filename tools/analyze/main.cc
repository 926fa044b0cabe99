// analyze: layer-level roofline analysis of an ONNX model on a device.
// Everything but argv handling lives in run.cc (testable in-process).
#include <iostream>
#include <string>
#include <vector>

#include "tools/analyze/run.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  return ridgeline::tools::analyze::AnalyzeMain(args, std::cout, std::cerr);
}
