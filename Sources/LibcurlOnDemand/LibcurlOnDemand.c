// libcurl on demand for a statically linked FoundationNetworking (Linux).
//
// FoundationNetworking's static library calls 23 libcurl functions. This
// file defines each of them with hidden visibility: inside the executable
// they take the place of libcurl's, and they are not exported, so a build
// that links FoundationNetworking as a shared object (which needs libcurl
// itself) keeps calling libcurl directly. Each definition opens
// libcurl.so.4 the first time any of them runs (once per process, under
// pthread_once) and calls libcurl's own function with the same arguments.
//
// Every Swift module that imports FoundationNetworking asks the linker for
// `-lcurl`. Compiled with `-Xfrontend -disable-autolink-library -Xfrontend
// curl` (docs/cli.md#installation), they no longer do, the link records no
// need for libcurl, and a process that sends no request (`authflow token` on
// a valid token) never maps it or the thirty shared objects it needs.
// Without that option libcurl is still loaded at start-up and these
// definitions call into it.
//
// libcurl missing at that moment is reported on stderr and the process
// exits with status 1; the alternative, the dynamic loader refusing to
// start the program at all, was no better.
#if defined(__linux__)

#include "LibcurlOnDemand.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#define ON_DEMAND __attribute__((visibility("hidden")))

// libcurl's types as the ABI sees them: handles are pointers, the result
// codes and the enumerations are ints, curl_socket_t is an int on Linux.
typedef void *(*HandleFunction)(void);
typedef void (*HandleCleanup)(void *);
typedef int (*EasySetoptLong)(void *, int, long);
typedef int (*EasySetoptOffset)(void *, int, long long);
typedef int (*EasySetoptPointer)(void *, int, void *);
typedef int (*EasySetoptFunction)(void *, int, void (*)(void));
typedef int (*EasyGetinfo)(void *, int, void *);
typedef int (*EasyPause)(void *, int);
typedef const char *(*CodeString)(int);
typedef void (*Free)(void *);
typedef int (*GlobalInit)(long);
typedef int (*MultiHandleCall)(void *, void *);
typedef int (*MultiAssign)(void *, int, void *);
typedef int (*MultiCleanup)(void *);
typedef void *(*MultiInfoRead)(void *, int *);
typedef int (*MultiSocketAction)(void *, int, int, int *);
typedef void *(*SlistAppend)(void *, const char *);
typedef int (*URLGet)(void *, int, char **, unsigned int);
typedef int (*URLSet)(void *, int, const char *, unsigned int);
typedef char *(*Version)(void);
typedef void *(*VersionInfo)(int);

static struct Functions {
    void *easyCleanup, *easyGetinfo, *easyInit, *easyPause, *easySetopt, *easyStrerror, *free, *globalInit;
    void *multiAddHandle, *multiAssign, *multiCleanup, *multiInfoRead, *multiInit, *multiRemoveHandle;
    void *multiSetopt, *multiSocketAction, *slistAppend, *slistFreeAll, *url, *urlGet, *urlSet;
    void *version, *versionInfo;
} libcurl;

static pthread_once_t opened = PTHREAD_ONCE_INIT;

static void fail(const char *what) {
    // One line, then the exit status of any other failure.
    fprintf(stderr, "authflow: cannot use %s, which network requests need: %s\n", LIBCURL_ON_DEMAND_SONAME, what);
    fflush(stderr);
    _exit(1);
}

static void *function(void *library, const char *name) {
    void *address = dlsym(library, name);
    if (!address) {
        const char *reason = dlerror();
        fail(reason ? reason : name);
    }
    return address;
}

static void open_libcurl(void) {
    void *library = dlopen(LIBCURL_ON_DEMAND_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *reason = dlerror();
        fail(reason ? reason : "dlopen failed");
    }
    libcurl.easyCleanup = function(library, "curl_easy_cleanup");
    libcurl.easyGetinfo = function(library, "curl_easy_getinfo");
    libcurl.easyInit = function(library, "curl_easy_init");
    libcurl.easyPause = function(library, "curl_easy_pause");
    libcurl.easySetopt = function(library, "curl_easy_setopt");
    libcurl.easyStrerror = function(library, "curl_easy_strerror");
    libcurl.free = function(library, "curl_free");
    libcurl.globalInit = function(library, "curl_global_init");
    libcurl.multiAddHandle = function(library, "curl_multi_add_handle");
    libcurl.multiAssign = function(library, "curl_multi_assign");
    libcurl.multiCleanup = function(library, "curl_multi_cleanup");
    libcurl.multiInfoRead = function(library, "curl_multi_info_read");
    libcurl.multiInit = function(library, "curl_multi_init");
    libcurl.multiRemoveHandle = function(library, "curl_multi_remove_handle");
    libcurl.multiSetopt = function(library, "curl_multi_setopt");
    libcurl.multiSocketAction = function(library, "curl_multi_socket_action");
    libcurl.slistAppend = function(library, "curl_slist_append");
    libcurl.slistFreeAll = function(library, "curl_slist_free_all");
    libcurl.url = function(library, "curl_url");
    libcurl.urlGet = function(library, "curl_url_get");
    libcurl.urlSet = function(library, "curl_url_set");
    libcurl.version = function(library, "curl_version");
    libcurl.versionInfo = function(library, "curl_version_info");
}

// The table, filled; pthread_once orders the filling before every reader.
static const struct Functions *filled(void) {
    pthread_once(&opened, open_libcurl);
    return &libcurl;
}
#define LIBCURL (*filled())

// The option's type is in its number (CURLOPTTYPE_*, the same for easy and
// multi options): below 10000 a long, 10000 an object or string pointer,
// 20000 a function pointer, 30000 a curl_off_t, 40000 a blob pointer.
static int set_option(void *setopt, void *handle, int option, va_list arguments) {
    if (option < 10000) return ((EasySetoptLong)setopt)(handle, option, va_arg(arguments, long));
    if (option >= 20000 && option < 30000)
        return ((EasySetoptFunction)setopt)(handle, option, va_arg(arguments, void (*)(void)));
    if (option >= 30000 && option < 40000) return ((EasySetoptOffset)setopt)(handle, option, va_arg(arguments, long long));
    return ((EasySetoptPointer)setopt)(handle, option, va_arg(arguments, void *));
}

ON_DEMAND int curl_easy_setopt(void *handle, int option, ...) {
    va_list arguments;
    va_start(arguments, option);
    int result = set_option(LIBCURL.easySetopt, handle, option, arguments);
    va_end(arguments);
    return result;
}

ON_DEMAND int curl_multi_setopt(void *handle, int option, ...) {
    va_list arguments;
    va_start(arguments, option);
    int result = set_option(LIBCURL.multiSetopt, handle, option, arguments);
    va_end(arguments);
    return result;
}

// Every CURLINFO_* takes one pointer to where the answer goes.
ON_DEMAND int curl_easy_getinfo(void *handle, int info, ...) {
    va_list arguments;
    va_start(arguments, info);
    void *answer = va_arg(arguments, void *);
    va_end(arguments);
    return ((EasyGetinfo)LIBCURL.easyGetinfo)(handle, info, answer);
}

ON_DEMAND void curl_easy_cleanup(void *handle) { ((HandleCleanup)LIBCURL.easyCleanup)(handle); }
ON_DEMAND void *curl_easy_init(void) { return ((HandleFunction)LIBCURL.easyInit)(); }
ON_DEMAND int curl_easy_pause(void *handle, int bitmask) { return ((EasyPause)LIBCURL.easyPause)(handle, bitmask); }
ON_DEMAND const char *curl_easy_strerror(int code) { return ((CodeString)LIBCURL.easyStrerror)(code); }
ON_DEMAND void curl_free(void *pointer) { ((Free)LIBCURL.free)(pointer); }
ON_DEMAND int curl_global_init(long flags) { return ((GlobalInit)LIBCURL.globalInit)(flags); }
ON_DEMAND int curl_multi_add_handle(void *multi, void *easy) { return ((MultiHandleCall)LIBCURL.multiAddHandle)(multi, easy); }
ON_DEMAND int curl_multi_assign(void *multi, int socket, void *pointer) {
    return ((MultiAssign)LIBCURL.multiAssign)(multi, socket, pointer);
}
ON_DEMAND int curl_multi_cleanup(void *multi) { return ((MultiCleanup)LIBCURL.multiCleanup)(multi); }
ON_DEMAND void *curl_multi_info_read(void *multi, int *remaining) { return ((MultiInfoRead)LIBCURL.multiInfoRead)(multi, remaining); }
ON_DEMAND void *curl_multi_init(void) { return ((HandleFunction)LIBCURL.multiInit)(); }
ON_DEMAND int curl_multi_remove_handle(void *multi, void *easy) {
    return ((MultiHandleCall)LIBCURL.multiRemoveHandle)(multi, easy);
}
ON_DEMAND int curl_multi_socket_action(void *multi, int socket, int events, int *running) {
    return ((MultiSocketAction)LIBCURL.multiSocketAction)(multi, socket, events, running);
}
ON_DEMAND void *curl_slist_append(void *list, const char *string) { return ((SlistAppend)LIBCURL.slistAppend)(list, string); }
ON_DEMAND void curl_slist_free_all(void *list) { ((HandleCleanup)LIBCURL.slistFreeAll)(list); }
ON_DEMAND void *curl_url(void) { return ((HandleFunction)LIBCURL.url)(); }
ON_DEMAND int curl_url_get(void *url, int part, char **answer, unsigned int flags) {
    return ((URLGet)LIBCURL.urlGet)(url, part, answer, flags);
}
ON_DEMAND int curl_url_set(void *url, int part, const char *value, unsigned int flags) {
    return ((URLSet)LIBCURL.urlSet)(url, part, value, flags);
}
ON_DEMAND char *curl_version(void) { return ((Version)LIBCURL.version)(); }
ON_DEMAND void *curl_version_info(int age) { return ((VersionInfo)LIBCURL.versionInfo)(age); }

#else
// Other platforms' Foundation does not use libcurl: nothing to define.
typedef int LibcurlOnDemandUnused;
#endif
