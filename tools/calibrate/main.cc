// calibrate: measures this host's CPU roofline and writes a hardware entry in
// the --hw-file format. Everything but argv handling lives in run.cc.
//
//   calibrate [-o host.json] [--seconds 10] [--threads all|1] [--array-mb 256]
//             [--key host]
#include <iostream>
#include <string>
#include <vector>

#include "tools/calibrate/run.h"

int main(int argc, char** argv) {
  const std::vector<std::string> args(argv + 1, argv + argc);
  return ridgeline::calibrate::CalibrateMain(args, std::cout, std::cerr);
}
