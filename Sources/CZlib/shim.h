// zlib. Ownership, from zlib.h: inflateInit2 allocates state that inflateEnd frees.
#include <zlib.h>

// inflateInit2 is a macro; Swift calls this instead. window_bits -15: raw DEFLATE.
static inline int CZlib_inflateInit2(z_stream *stream, int window_bits) {
    return inflateInit2(stream, window_bits);
}
