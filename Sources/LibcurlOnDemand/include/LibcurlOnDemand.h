// The libcurl functions FoundationNetworking calls, defined in
// LibcurlOnDemand.c for an executable that links FoundationNetworking
// statically (`swift build --static-swift-stdlib`): each opens libcurl the
// first time one of them is called, so that a run that sends no request
// need not load libcurl and the thirty shared objects it needs
// (docs/performance.md#authflow-token). Nothing here is called from Swift.
#ifndef LIBCURL_ON_DEMAND_H
#define LIBCURL_ON_DEMAND_H

/// The shared object the functions are taken from, the name the static
/// link of FoundationNetworking would otherwise record as needed.
#define LIBCURL_ON_DEMAND_SONAME "libcurl.so.4"

#endif
