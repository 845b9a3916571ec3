#pragma once
// How Sepal's OpenMP threads wait between parallel regions: asleep, never spinning, so that two
// threads are not slower than one when other programs keep the cores busy.

#include <string>

namespace sepal {

/// The most threads Sepal asks for: 4 times the cores, at most 1024, since the OpenMP runtime
/// fails (or crashes) when it cannot create many more threads than that.
int maxThreadCount();

/// Checks a thread count the user gave under `option` ("--threads"): 0 (all cores) up to
/// maxThreadCount(); throws InputError saying the allowed range otherwise.
void checkThreadCount(int threads, const std::string& option);

/// Called first in main. When the user set neither OMP_WAIT_POLICY nor GOMP_SPINCOUNT, sets
/// OMP_WAIT_POLICY=PASSIVE and runs the program again (/proc/self/exe, the same argv), because
/// the OpenMP runtime reads it only when it is loaded. Returns when a policy was already set,
/// or, silently, when the program cannot be run again.
void waitPassively(char** argv);

}  // namespace sepal
