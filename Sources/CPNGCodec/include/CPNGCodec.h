// camlib's full-API libpng paths, as C: libpng reports errors by longjmp to a setjmp
// point, which Swift cannot host. Exact 8/16-bit gray or RGB (with sBIT and text chunks)
// out; exact samples in, with no gamma or colour conversion; whole, or row by row.
//
// Ownership: every buffer these functions return is malloc'd and the caller frees it
// with free(); on failure nothing is left to free. A row reader or writer is freed with
// its own _free function, once, whatever happened to it.
#ifndef CPNG_CODEC_H
#define CPNG_CODEC_H

#include <stddef.h>

typedef struct {
    unsigned char *data;  // malloc'd; the caller frees it with free()
    size_t size, capacity;
    int failed;
} cpng_buffer;

typedef struct {
    char message[200];
} cpng_error;

/// A text chunk: `keyword` 1-79 Latin-1 characters; `text` UTF-8. Written as tEXt when
/// the text is ASCII, as iTXt (uncompressed) otherwise.
typedef struct {
    const char *keyword;
    const char *text;
} cpng_text;

/// Encodes gray (channels 1), gray+alpha (2), RGB (3) or RGBA (4) pixels, 8 or 16 bits
/// per sample (16-bit samples in host order, little-endian here), rows packed, samples
/// as given (the caller scales them to the full range the PNG specification requires).
/// `significant_bits` (1..bit_depth) goes into an sBIT chunk when below `bit_depth`.
/// `texts`: `text_count` text chunks, written before the image data.
/// `photographic`: libpng's own per-row filter choice and zlib's default strategy (for
/// photos); otherwise the Up filter and run-length matching (for depth maps and mattes).
/// On success returns 1 and sets *out (free() out->data); on failure returns 0 with
/// err->message.
int cpng_encode(const void *pixels, unsigned width, unsigned height, int channels, int bit_depth, int significant_bits,
                const cpng_text *texts, int text_count, int compression_level, int photographic, cpng_buffer *out,
                cpng_error *err);

typedef struct {
    unsigned width, height;
    int channels;          // 1 gray or 3 RGB, 2 and 4 with alpha when kept (palettes expanded)
    int bit_depth;         // 8 or 16 (1/2/4-bit gray is expanded to 8)
    int significant_bits;  // from sBIT, else bit_depth
    int had_alpha;
    int file_gamma;        // the gAMA chunk's value (100000 times the gamma), 45455 for an sRGB chunk, 0 for neither
    unsigned char *pixels; // malloc'd, rows packed, 16-bit in host order; free() it
} cpng_decoded;

/// Decodes a PNG keeping its sample values exactly: no gamma or colour conversion.
/// `keep_alpha`: an alpha channel (or a tRNS chunk, as alpha) is kept; otherwise dropped.
/// Returns 1 on success; 0 with err->message set otherwise. `max_pixels` bounds memory.
int cpng_decode(const void *bytes, size_t size, size_t max_pixels, int keep_alpha, cpng_decoded *result, cpng_error *err);

/// Reads a non-interlaced PNG's rows top to bottom, samples as cpng_decode gives them with
/// alpha kept (`keep_alpha` 1). `bytes` must outlive the reader. Returns NULL with
/// err->message when the PNG cannot be opened (an interlaced one is refused: its rows
/// come in passes); else fills `info` (its `pixels` NULL).
typedef struct cpng_row_reader cpng_row_reader;
cpng_row_reader *cpng_row_reader_open(const void *bytes, size_t size, size_t max_pixels, cpng_decoded *info, cpng_error *err);
/// The next `count` rows into `rows`, packed (`channels` samples a pixel at `bit_depth`).
/// Returns 1, or 0 with err->message; after a failure every call fails.
int cpng_row_reader_read(cpng_row_reader *reader, void *rows, unsigned count, cpng_error *err);
void cpng_row_reader_free(cpng_row_reader *reader);

/// Where a row writer's bytes go, as libpng makes them; returns 0 when it cannot take
/// them (the writer then fails).
typedef int (*cpng_sink)(void *context, const unsigned char *bytes, size_t length);

/// Writes a PNG row by row; the arguments are cpng_encode's. Signature, header, sBIT and
/// texts reach `sink` at once, image data as rows are written, the end at finish.
/// Returns NULL with err->message on failure.
typedef struct cpng_row_writer cpng_row_writer;
cpng_row_writer *cpng_row_writer_open(unsigned width, unsigned height, int channels, int bit_depth, int significant_bits,
                                      const cpng_text *texts, int text_count, int compression_level, int photographic,
                                      cpng_sink sink, void *context, cpng_error *err);
/// The next `count` rows, packed. Returns 1, or 0 with err->message; after a failure
/// every call fails.
int cpng_row_writer_write(cpng_row_writer *writer, const void *rows, unsigned count, cpng_error *err);
/// Ends the PNG once every row is written. Returns 1, or 0 with err->message.
int cpng_row_writer_finish(cpng_row_writer *writer, cpng_error *err);
void cpng_row_writer_free(cpng_row_writer *writer);

/// libpng's simplified-API constants, which are macros Swift cannot import.
unsigned int cpng_format_rgb(void);
unsigned int cpng_image_version(void);
/// PNG_IMAGE_FLAG_16BIT_sRGB: 16-bit samples without gAMA or sRGB are sRGB, not linear.
unsigned int cpng_flag_16bit_srgb(void);

#endif
