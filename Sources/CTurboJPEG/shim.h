// libturbojpeg (TurboJPEG API 2.1). Ownership, from turbojpeg.h: tjInitDecompress/
// tjInitCompress and tjDestroy; buffers that tjCompress2 allocates are freed with tjFree.
#include <turbojpeg.h>
