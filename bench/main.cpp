// Google Benchmark's main, with libcurl initialised first as the ralph executable does it.

#include "ralph/http/curl_transport.h"

#include <benchmark/benchmark.h>

int main(int argc, char** argv) {
  const ralph::http::CurlGlobal curl;
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) {
    return 1;
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
