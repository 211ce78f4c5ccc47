// The FFmpeg loader: see CFFmpeg.h.
#include "CFFmpeg.h"

#include <dlfcn.h>
#include <stdio.h>

const CFFmpegFunctions *_Nullable CFFmpeg_load(char *_Nonnull error, size_t errorSize) {
    static CFFmpegFunctions table;
    static const char *const sonames[] = {
        "libavutil.so." AV_STRINGIFY(LIBAVUTIL_VERSION_MAJOR),
        "libswscale.so." AV_STRINGIFY(LIBSWSCALE_VERSION_MAJOR),
        "libavcodec.so." AV_STRINGIFY(LIBAVCODEC_VERSION_MAJOR),
        "libavformat.so." AV_STRINGIFY(LIBAVFORMAT_VERSION_MAJOR),
    };
    enum { count = sizeof(sonames) / sizeof(sonames[0]) };
    void *handles[count] = {NULL};
    int opened = 0;
    for (; opened < count; opened++) {
        handles[opened] = dlopen(sonames[opened], RTLD_NOW | RTLD_LOCAL);
        if (!handles[opened]) {
            snprintf(error, errorSize, "%s", dlerror());
            goto fail;
        }
    }
#define CFFMPEG_FIND(name) \
    { \
        void *found = NULL; \
        for (int i = 0; i < count && !found; i++) found = dlsym(handles[i], #name); \
        if (!found) { \
            snprintf(error, errorSize, "%s not found in %s, %s, %s or %s", #name, sonames[0], sonames[1], sonames[2], sonames[3]); \
            goto fail; \
        } \
        table.name = (__typeof__(&name))found; \
    }
    CFFMPEG_FUNCTIONS(CFFMPEG_FIND)
#undef CFFMPEG_FIND
    return &table;
fail:
    // What was opened is closed again: nothing of a failed load stays in the process.
    while (opened > 0) dlclose(handles[--opened]);
    return NULL;
}

int CFFmpeg_loadDevices(char *_Nonnull error, size_t errorSize) {
    static int loaded = 0;
    if (loaded) return 1;
    const char *soname = "libavdevice.so." AV_STRINGIFY(LIBAVDEVICE_VERSION_MAJOR);
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        snprintf(error, errorSize, "%s", dlerror());
        return 0;
    }
    __typeof__(&avdevice_register_all) registerAll = (__typeof__(&avdevice_register_all))dlsym(handle, "avdevice_register_all");
    if (!registerAll) {
        snprintf(error, errorSize, "avdevice_register_all not found in %s", soname);
        dlclose(handle);
        return 0;
    }
    registerAll();
    loaded = 1;
    return 1;
}

int CFFmpeg_AVERROR_EOF(void) { return AVERROR_EOF; }
int CFFmpeg_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
int64_t CFFmpeg_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
int CFFmpeg_AV_TIME_BASE(void) { return AV_TIME_BASE; }
