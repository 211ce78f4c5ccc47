// See CPNGCodec.h. libpng 1.6: png_create_*_struct pairs with png_destroy_*_struct;
// errors arrive through cpng_on_error, which longjmps back to the setjmp of the call.
#include "CPNGCodec.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

unsigned int cpng_format_rgb(void) { return PNG_FORMAT_RGB; }
unsigned int cpng_flag_16bit_srgb(void) { return PNG_IMAGE_FLAG_16BIT_sRGB; }
unsigned int cpng_image_version(void) { return PNG_IMAGE_VERSION; }

static void cpng_on_error(png_structp png, png_const_charp text) {
    cpng_error *err = (cpng_error *)png_get_error_ptr(png);
    if (err) {
        strncpy(err->message, text ? text : "libpng error", sizeof(err->message) - 1);
        err->message[sizeof(err->message) - 1] = 0;
    }
    png_longjmp(png, 1);
}

static void cpng_on_warning(png_structp png, png_const_charp text) { (void)png; (void)text; }

/// The row writer: libpng's state, where its bytes go, and the error its callback fills.
struct cpng_row_writer {
    png_structp png;
    png_infop info;
    cpng_sink sink;
    void *context;
    unsigned rows_left;
    size_t row_bytes;
    int bit_depth;
    int failed;
    cpng_error error;
};

static void cpng_write_data(png_structp png, png_bytep bytes, png_size_t length) {
    cpng_row_writer *w = (cpng_row_writer *)png_get_io_ptr(png);
    if (!w->sink(w->context, bytes, length)) png_error(png, "out of memory");
}

static void cpng_flush(png_structp png) { (void)png; }

static void cpng_copy_error(const cpng_error *from, cpng_error *to) {
    if (to && to != from) memcpy(to->message, from->message, sizeof(to->message));
}

void cpng_row_writer_free(cpng_row_writer *w) {
    if (!w) return;
    png_destroy_write_struct(&w->png, &w->info);
    free(w);
}

cpng_row_writer *cpng_row_writer_open(unsigned width, unsigned height, int channels, int bit_depth, int significant_bits,
                                      const cpng_text *texts, int text_count, int compression_level, int photographic,
                                      cpng_sink sink, void *context, cpng_error *err) {
    cpng_row_writer *w = (cpng_row_writer *)calloc(1, sizeof(cpng_row_writer));
    if (!w) { strcpy(err->message, "out of memory"); return NULL; }
    w->png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &w->error, cpng_on_error, cpng_on_warning);
    if (!w->png) { free(w); strcpy(err->message, "cannot create a PNG writer"); return NULL; }
    w->info = png_create_info_struct(w->png);
    if (!w->info) { cpng_row_writer_free(w); strcpy(err->message, "cannot create PNG info"); return NULL; }
    w->sink = sink;
    w->context = context;
    w->rows_left = height;
    w->bit_depth = bit_depth;
    w->row_bytes = (size_t)width * channels * (bit_depth / 8);
    png_text *volatile chunks = NULL;
    if (setjmp(png_jmpbuf(w->png))) {
        free(chunks);
        cpng_copy_error(&w->error, err);
        cpng_row_writer_free(w);
        return NULL;
    }
    png_set_write_fn(w->png, w, cpng_write_data, cpng_flush);
    png_set_compression_level(w->png, compression_level);
    if (!photographic) {
        // Run-length matching only (Z_RLE): depth maps and mattes are runs of equal or
        // near-equal rows after the Up filter: smaller files than the default, and no
        // slower.
        png_set_compression_strategy(w->png, 3 /* Z_RLE */);
        // One filter for every row instead of libpng's per-row trial of all five: on
        // depth maps, mattes and gain maps the Up filter is a third faster and no larger.
        png_set_filter(w->png, 0, PNG_FILTER_UP);
    }
    int color_type = channels == 1 ? PNG_COLOR_TYPE_GRAY
                   : channels == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
                   : channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_IHDR(w->png, w->info, width, height, bit_depth, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (significant_bits > 0 && significant_bits < bit_depth) {
        png_color_8 sig;
        memset(&sig, 0, sizeof(sig));
        sig.gray = sig.red = sig.green = sig.blue = (png_byte)significant_bits;
        png_set_sBIT(w->png, w->info, &sig);
    }
    if (text_count > 0) {
        chunks = (png_text *)calloc((size_t)text_count, sizeof(png_text));
        if (!chunks) png_error(w->png, "out of memory");
        for (int i = 0; i < text_count; i++) {
            int ascii = 1;
            for (const unsigned char *c = (const unsigned char *)texts[i].text; *c; c++) if (*c > 0x7E) { ascii = 0; break; }
            chunks[i].compression = ascii ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE;
            chunks[i].key = (png_charp)texts[i].keyword;
            chunks[i].text = (png_charp)texts[i].text;
        }
        // libpng copies the texts into its info struct, so they are freed at once.
        png_set_text(w->png, w->info, chunks, text_count);
        free(chunks);
        chunks = NULL;
    }
    png_write_info(w->png, w->info);
    if (bit_depth == 16) png_set_swap(w->png);
    return w;
}

int cpng_row_writer_write(cpng_row_writer *w, const void *rows, unsigned count, cpng_error *err) {
    if (w->failed) { cpng_copy_error(&w->error, err); return 0; }
    if (count > w->rows_left) { strcpy(err->message, "more rows than the PNG's height"); return 0; }
    if (setjmp(png_jmpbuf(w->png))) {
        w->failed = 1;
        cpng_copy_error(&w->error, err);
        return 0;
    }
    for (unsigned y = 0; y < count; y++) png_write_row(w->png, (png_const_bytep)rows + (size_t)y * w->row_bytes);
    w->rows_left -= count;
    return 1;
}

int cpng_row_writer_finish(cpng_row_writer *w, cpng_error *err) {
    if (w->failed) { cpng_copy_error(&w->error, err); return 0; }
    if (w->rows_left > 0) { strcpy(err->message, "the PNG's rows are not all written"); return 0; }
    if (setjmp(png_jmpbuf(w->png))) {
        w->failed = 1;
        cpng_copy_error(&w->error, err);
        return 0;
    }
    png_write_end(w->png, w->info);
    return 1;
}

/// A sink growing a cpng_buffer.
static int cpng_buffer_sink(void *context, const unsigned char *bytes, size_t length) {
    cpng_buffer *out = (cpng_buffer *)context;
    if (out->size + length > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 65536;
        while (capacity < out->size + length) capacity *= 2;
        unsigned char *grown = (unsigned char *)realloc(out->data, capacity);
        if (!grown) return 0;
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, bytes, length);
    out->size += length;
    return 1;
}

int cpng_encode(const void *pixels, unsigned width, unsigned height, int channels, int bit_depth, int significant_bits,
                const cpng_text *texts, int text_count, int compression_level, int photographic, cpng_buffer *out,
                cpng_error *err) {
    memset(out, 0, sizeof(*out));
    cpng_row_writer *w = cpng_row_writer_open(width, height, channels, bit_depth, significant_bits, texts, text_count,
                                              compression_level, photographic, cpng_buffer_sink, out, err);
    int ok = w && cpng_row_writer_write(w, pixels, height, err) && cpng_row_writer_finish(w, err);
    cpng_row_writer_free(w);
    if (!ok) {
        free(out->data);
        memset(out, 0, sizeof(*out));
    }
    return ok;
}

typedef struct {
    const unsigned char *data;
    size_t size, position;
} cpng_source;

static void cpng_read_data(png_structp png, png_bytep bytes, png_size_t length) {
    cpng_source *in = (cpng_source *)png_get_io_ptr(png);
    if (length > in->size - in->position) png_error(png, "the PNG data ends early");
    memcpy(bytes, in->data + in->position, length);
    in->position += length;
}


/// libpng's reader made ready to give exact samples (see cpng_decode), `result` filled
/// but for its pixels. Call within the caller's setjmp.
static void cpng_prepare_read(png_structp png, png_infop info, size_t max_pixels, int keep_alpha, int whole, cpng_decoded *result) {
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    int color = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    if (width == 0 || height == 0 || (size_t)width * height > max_pixels) png_error(png, "image size not supported");
    if (!whole && png_get_interlace_type(png, info) != PNG_INTERLACE_NONE) png_error(png, "an interlaced PNG cannot be read row by row");
    int significant = depth < 8 ? 8 : depth;
    png_color_8p sig = NULL;
    if (png_get_sBIT(png, info, &sig) && sig) {
        int s = (color & PNG_COLOR_MASK_COLOR) ? sig->red : sig->gray;
        if (s > 0 && s <= depth) significant = s;
    }
    result->had_alpha = (color & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    int intent = 0;
    png_fixed_point gamma = 0;
    if (png_get_sRGB(png, info, &intent)) result->file_gamma = 45455;  // the gamma an sRGB chunk implies
    else if (png_get_gAMA_fixed(png, info, &gamma) && gamma > 0) result->file_gamma = gamma;
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (keep_alpha && png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (!keep_alpha && (color & PNG_COLOR_MASK_ALPHA)) png_set_strip_alpha(png);
    if (depth == 16) png_set_swap(png);
    if (whole) png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int out_depth = png_get_bit_depth(png, info);
    result->width = width;
    result->height = height;
    result->channels = png_get_channels(png, info);
    result->bit_depth = out_depth;
    result->significant_bits = significant > out_depth ? out_depth : significant;
}

int cpng_decode(const void *bytes, size_t size, size_t max_pixels, int keep_alpha, cpng_decoded *result, cpng_error *err) {
    cpng_source source = {(const unsigned char *)bytes, size, 0};
    memset(result, 0, sizeof(*result));
    if (size < 8 || png_sig_cmp((png_const_bytep)bytes, 0, 8) != 0) { strcpy(err->message, "not a PNG file"); return 0; }
    png_structp png = png_create_read_struct(PNG_LIBPNG_VER_STRING, err, cpng_on_error, cpng_on_warning);
    if (!png) { strcpy(err->message, "cannot create a PNG reader"); return 0; }
    png_infop info = png_create_info_struct(png);
    if (!info) { png_destroy_read_struct(&png, NULL, NULL); strcpy(err->message, "cannot create PNG info"); return 0; }
    unsigned char *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(rows);
        free(pixels);
        memset(result, 0, sizeof(*result));
        return 0;
    }
    png_set_read_fn(png, &source, cpng_read_data);
    cpng_prepare_read(png, info, max_pixels, keep_alpha, 1, result);
    size_t row_bytes = png_get_rowbytes(png, info);
    png_uint_32 height = result->height;
    pixels = (unsigned char *)malloc(row_bytes * height);
    if (!pixels) png_error(png, "out of memory");
    rows = (png_bytep *)malloc(sizeof(png_bytep) * height);
    if (!rows) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + y * row_bytes;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    result->pixels = pixels;
    return 1;
}

/// The row reader: libpng's state, its source, and the error its callback fills.
struct cpng_row_reader {
    png_structp png;
    png_infop info;
    cpng_source source;
    unsigned rows_left;
    size_t row_bytes;
    int failed;
    cpng_error error;
};

void cpng_row_reader_free(cpng_row_reader *r) {
    if (!r) return;
    png_destroy_read_struct(&r->png, &r->info, NULL);
    free(r);
}

cpng_row_reader *cpng_row_reader_open(const void *bytes, size_t size, size_t max_pixels, cpng_decoded *result, cpng_error *err) {
    memset(result, 0, sizeof(*result));
    if (size < 8 || png_sig_cmp((png_const_bytep)bytes, 0, 8) != 0) { strcpy(err->message, "not a PNG file"); return NULL; }
    cpng_row_reader *r = (cpng_row_reader *)calloc(1, sizeof(cpng_row_reader));
    if (!r) { strcpy(err->message, "out of memory"); return NULL; }
    r->source = (cpng_source){(const unsigned char *)bytes, size, 0};
    r->png = png_create_read_struct(PNG_LIBPNG_VER_STRING, &r->error, cpng_on_error, cpng_on_warning);
    if (!r->png) { free(r); strcpy(err->message, "cannot create a PNG reader"); return NULL; }
    r->info = png_create_info_struct(r->png);
    if (!r->info) { cpng_row_reader_free(r); strcpy(err->message, "cannot create PNG info"); return NULL; }
    if (setjmp(png_jmpbuf(r->png))) {
        cpng_copy_error(&r->error, err);
        cpng_row_reader_free(r);
        memset(result, 0, sizeof(*result));
        return NULL;
    }
    png_set_read_fn(r->png, &r->source, cpng_read_data);
    cpng_prepare_read(r->png, r->info, max_pixels, 1, 0, result);
    r->rows_left = result->height;
    r->row_bytes = png_get_rowbytes(r->png, r->info);
    return r;
}

int cpng_row_reader_read(cpng_row_reader *r, void *rows, unsigned count, cpng_error *err) {
    if (r->failed) { cpng_copy_error(&r->error, err); return 0; }
    if (count > r->rows_left) { strcpy(err->message, "more rows than the PNG's height"); return 0; }
    if (setjmp(png_jmpbuf(r->png))) {
        r->failed = 1;
        cpng_copy_error(&r->error, err);
        return 0;
    }
    for (unsigned y = 0; y < count; y++) png_read_row(r->png, (png_bytep)rows + (size_t)y * r->row_bytes, NULL);
    r->rows_left -= count;
    return 1;
}
