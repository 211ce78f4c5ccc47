// See CPNGCodec.h. libpng 1.6: png_create_*_struct pairs with png_destroy_*_struct;
// errors arrive through cpng_on_error, which longjmps back to the setjmp of the call.
#include "CPNGCodec.h"

#include <png.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

unsigned int cpng_format_rgb(void) { return PNG_FORMAT_RGB; }
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

static void cpng_write_data(png_structp png, png_bytep bytes, png_size_t length) {
    cpng_buffer *out = (cpng_buffer *)png_get_io_ptr(png);
    if (out->failed) return;
    if (out->size + length > out->capacity) {
        size_t capacity = out->capacity ? out->capacity : 65536;
        while (capacity < out->size + length) capacity *= 2;
        unsigned char *grown = (unsigned char *)realloc(out->data, capacity);
        if (!grown) { out->failed = 1; png_error(png, "out of memory"); }
        out->data = grown;
        out->capacity = capacity;
    }
    memcpy(out->data + out->size, bytes, length);
    out->size += length;
}

static void cpng_flush(png_structp png) { (void)png; }

int cpng_encode(const void *pixels, unsigned width, unsigned height, int channels, int bit_depth, int significant_bits,
                const cpng_text *texts, int text_count, int compression_level, int photographic, cpng_buffer *out,
                cpng_error *err) {
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, err, cpng_on_error, cpng_on_warning);
    if (!png) { strcpy(err->message, "cannot create a PNG writer"); return 0; }
    png_infop info = png_create_info_struct(png);
    if (!info) { png_destroy_write_struct(&png, NULL); strcpy(err->message, "cannot create PNG info"); return 0; }
    png_text *volatile chunks = NULL;
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(chunks);
        free(out->data);
        out->data = NULL;
        out->size = out->capacity = 0;
        return 0;
    }
    png_set_write_fn(png, out, cpng_write_data, cpng_flush);
    png_set_compression_level(png, compression_level);
    if (!photographic) {
        // Run-length matching only (Z_RLE): depth maps and mattes are runs of equal or
        // near-equal rows after the Up filter: smaller files than the default, and no
        // slower.
        png_set_compression_strategy(png, 3 /* Z_RLE */);
        // One filter for every row instead of libpng's per-row trial of all five: on
        // depth maps, mattes and gain maps the Up filter is a third faster and no larger.
        png_set_filter(png, 0, PNG_FILTER_UP);
    }
    int color_type = channels == 1 ? PNG_COLOR_TYPE_GRAY
                   : channels == 2 ? PNG_COLOR_TYPE_GRAY_ALPHA
                   : channels == 3 ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA;
    png_set_IHDR(png, info, width, height, bit_depth, color_type,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    if (significant_bits > 0 && significant_bits < bit_depth) {
        png_color_8 sig;
        memset(&sig, 0, sizeof(sig));
        sig.gray = sig.red = sig.green = sig.blue = (png_byte)significant_bits;
        png_set_sBIT(png, info, &sig);
    }
    if (text_count > 0) {
        chunks = (png_text *)calloc((size_t)text_count, sizeof(png_text));
        if (!chunks) png_error(png, "out of memory");
        for (int i = 0; i < text_count; i++) {
            int ascii = 1;
            for (const unsigned char *c = (const unsigned char *)texts[i].text; *c; c++) if (*c > 0x7E) { ascii = 0; break; }
            chunks[i].compression = ascii ? PNG_TEXT_COMPRESSION_NONE : PNG_ITXT_COMPRESSION_NONE;
            chunks[i].key = (png_charp)texts[i].keyword;
            chunks[i].text = (png_charp)texts[i].text;
        }
        // libpng copies the texts into its info struct, so they are freed at once.
        png_set_text(png, info, chunks, text_count);
        free(chunks);
        chunks = NULL;
    }
    png_write_info(png, info);
    if (bit_depth == 16) png_set_swap(png);
    size_t row_bytes = (size_t)width * channels * (bit_depth / 8);
    for (unsigned y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)pixels + (size_t)y * row_bytes);
    }
    png_write_end(png, info);
    png_destroy_write_struct(&png, &info);
    return 1;
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
        return 0;
    }
    png_set_read_fn(png, &source, cpng_read_data);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    int color = png_get_color_type(png, info), depth = png_get_bit_depth(png, info);
    if (width == 0 || height == 0 || (size_t)width * height > max_pixels) png_error(png, "image size not supported");
    int significant = depth < 8 ? 8 : depth;
    png_color_8p sig = NULL;
    if (png_get_sBIT(png, info, &sig) && sig) {
        int s = (color & PNG_COLOR_MASK_COLOR) ? sig->red : sig->gray;
        if (s > 0 && s <= depth) significant = s;
    }
    result->had_alpha = (color & PNG_COLOR_MASK_ALPHA) || png_get_valid(png, info, PNG_INFO_tRNS);
    if (color == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (color == PNG_COLOR_TYPE_GRAY && depth < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (keep_alpha && png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (!keep_alpha && (color & PNG_COLOR_MASK_ALPHA)) png_set_strip_alpha(png);
    if (depth == 16) png_set_swap(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    int out_depth = png_get_bit_depth(png, info);
    size_t row_bytes = png_get_rowbytes(png, info);
    pixels = (unsigned char *)malloc(row_bytes * height);
    if (!pixels) png_error(png, "out of memory");
    rows = (png_bytep *)malloc(sizeof(png_bytep) * height);
    if (!rows) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + y * row_bytes;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    result->width = width;
    result->height = height;
    result->channels = channels;
    result->bit_depth = out_depth;
    result->significant_bits = significant > out_depth ? out_depth : significant;
    result->pixels = pixels;
    return 1;
}
