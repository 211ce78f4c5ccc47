// Per-pixel loops over rows of pictures (Filters and Imaging call them), in C
// so that each is compiled twice, for SSE2 and for AVX2, and the one the processor runs
// best is chosen when the program loads (target_clones): Swift compiles a function for
// one instruction set only. Plain loops over restrict pointers, which clang turns into
// vector code; no fused multiply-adds, so both versions give the same bits.
#pragma once
#include <stdint.h>

// Working planes read back at full size (upsample.c).

/// `pairs` samples of `line` (of `count`) from `first` on, each read back as two columns:
/// 3/4 of itself and 1/4 of its neighbour on that side (the line's ends clamped), as the
/// bilinear reading of a line twice as long has them.
void camlib_rows_doubled(const float *restrict line, long count, long first, long pairs, float *restrict out);

// The comic's colours (comic.c).

/// What the colours of a row are made with (ComicFilter.Plan).
typedef struct {
    /// How much a dot darkens the fill (0 ... 1).
    float ink;
    /// The line mask's slope about 0.5, which sharpens its upsampled values into coverage.
    float slope;
    /// How far the colours' chroma is lifted around their luma.
    float saturation;
    /// The ink of the lines, 0 ... 255.
    float inkRed, inkGreen, inkBlue;
} camlib_comic_look;

/// Rec. 709 luma `l` of the row's softened colours, and the fill's `tone`: the luma
/// rounded to a whole 0 ... 255, the nearest of `steps + 1` levels, lifted so that the
/// darkest is 12% gray.
void camlib_comic_tones(
    const float *restrict r, const float *restrict g, const float *restrict b, long count, float steps,
    float *restrict l, float *restrict tone);

/// The pixels' colours, 0 ... 255: the fill (the tone, with the colours' chroma lifted),
/// darkened by its dot (`dotted`, 0 ... 1) and covered by a line (`mask`, through the
/// look's slope), into `red`, `green`, `blue`.
void camlib_comic_colours(
    const float *restrict r, const float *restrict g, const float *restrict b, const float *restrict mask,
    const float *restrict dotted, const float *restrict l, const float *restrict tone, long count,
    const camlib_comic_look *look, float *restrict red, float *restrict green, float *restrict blue);

/// Luma bytes of colours through a matrix's kr, kg, kb: (kr·R + kg·G + kb·B)·scale + offset,
/// rounded (ties to even).
void camlib_comic_luma(
    const float *restrict red, const float *restrict green, const float *restrict blue, long count,
    float kr, float kg, float kb, float scale, float offset, uint8_t *restrict luma);

/// Chroma bytes of each 2x2 pixels (columns 2i and 2i + 1 of an even and an odd row of
/// colours; `count` columns, even) from their mean colour: (B − Y)·cbScale + 128 and
/// (R − Y)·crScale + 128, clamped to 0 ... 255 and rounded.
void camlib_comic_chroma(
    const float *restrict evenRed, const float *restrict evenGreen, const float *restrict evenBlue,
    const float *restrict oddRed, const float *restrict oddGreen, const float *restrict oddBlue, long count,
    float kr, float kg, float kb, float cbScale, float crScale, uint8_t *restrict cb, uint8_t *restrict cr);

/// Colours as interleaved RGB bytes, rounded (ties to even).
void camlib_comic_bytes(
    const float *restrict red, const float *restrict green, const float *restrict blue, long count, uint8_t *restrict rgb);

// Pictures decoded as Y'CbCr (ycbcr.c).

/// One row of an 8-bit 4:2:0 picture halved, as RGB bytes: each output pixel the 2x2 mean
/// of luma (rows `above` and `below`) beside the chroma sample the picture has there,
/// levelled ((Y − lumaOffset)·lumaScale) and through the matrix (crToR, cbToG, crToG,
/// cbToB, with chroma about 128), clamped to 0 ... 255 and rounded; `count` output pixels.
void camlib_rows_halved_rgb(
    const uint8_t *restrict above, const uint8_t *restrict below, const uint8_t *restrict cb, const uint8_t *restrict cr,
    long count, float lumaScale, float lumaOffset, float crToR, float cbToG, float crToG, float cbToB, uint8_t *restrict rgb);

/// Pixels `x0` ..< `x0 + count` of one row of an 8-bit 4:2:0 picture at full size, as RGB
/// bytes: `luma` the row's luma and `cb`, `cr` its chroma row (each from x = 0), each
/// chroma sample taken for the 2x2 luma block it belongs to (as libheif 1.19 converts);
/// levelled and through the matrix as ``camlib_rows_halved_rgb``.
void camlib_row_420_rgb(
    const uint8_t *restrict luma, const uint8_t *restrict cb, const uint8_t *restrict cr, long x0, long count, float lumaScale,
    float lumaOffset, float crToR, float cbToG, float crToG, float cbToB, uint8_t *restrict rgb);

// Geometry (resample.c).

/// Rows `firstRow` ..< `firstRow + rowCount` of a picture resampled from `src` (width ×
/// height, `channels` bytes a pixel) by bilinear interpolation, into `dst` (those rows
/// alone, `outWidth` pixels each). `placement` holds a ... f: output pixel centre (x, y)
/// reads the input at (a·x + b·y + c, d·x + e·y + f), clamped to its edges; positions in
/// 16.16 fixed point, weights in 1/256, rounded to nearest. Width and height in
/// 2 ... 16384, |a| and |d| at most 64.
void camlib_bilinear_rows(
    const uint8_t *restrict src, long width, long height, long channels, long outWidth, long firstRow, long rowCount,
    const double *placement, uint8_t *restrict dst);

/// The same without vector instructions (what a processor without AVX2 runs).
void camlib_bilinear_rows_scalar(
    const uint8_t *restrict src, long width, long height, long channels, long outWidth, long firstRow, long rowCount,
    const double *placement, uint8_t *restrict dst);

// Per-pixel colour steps (pointwise.c), in place on interleaved RGB bytes.

/// Each sample through its channel's table: `tables` holds red's 256 entries, green's, blue's.
void camlib_rgb_tables(uint8_t *restrict rgb, long count, const uint8_t *restrict tables);

/// Each channel's distance from the pixel's Rec. 709 luma ((54·R + 183·G + 19·B + 128) >> 8)
/// times factor / 256, rounded (an arithmetic shift), clamped to 0 ... 255.
void camlib_rgb_chroma_scaled(uint8_t *restrict rgb, long count, int32_t factor);

/// Local tone, in place on `count` RGB pixels: each pixel's base, slope·luma + offset
/// (luma Rec. 709 over the sample's top value, the base clamped to 0 ... 1), and each
/// sample times gains[base·steps rounded], rounded and clamped to the top value.
void camlib_local_tone8(
    uint8_t *restrict rgb, long count, const float *restrict slope, const float *restrict offset, const float *restrict gains, long steps);

/// The same at 16 bits a sample.
void camlib_local_tone16(
    uint16_t *restrict rgb, long count, const float *restrict slope, const float *restrict offset, const float *restrict gains, long steps);

// Disc means (disc.c), on planes of 4 interleaved floats a sample.

/// Rows `first` ..< `first + count` of `plane` (`width` × `height` samples) replaced, in
/// place, by their mean over a disc of each sample's own radius, `radii[y · width + x]`
/// samples (at most `reach` + 1, and `pad` ≥ `reach` + 2; samples outside the plane count
/// as zero): rows |dy| < radius, each a span of √(radius² − dy²) either side of the
/// sample's centre, its ends read between two running sums by linear interpolation, the
/// total divided by the disc's area (rows outside the plane included, as zero). A sample
/// of radius 0 becomes 0. `above` holds copies of the `reach` rows before `first` and
/// `below` of the `reach` rows from `first + count` (those inside the plane), taken before
/// any band is written; `ring` has room for 2·reach + 1 rows of `width + 1 + 2·pad`
/// samples, `areas` for `width` floats and `runs` for `width` + 1.
void camlib_disc_band4_varying(
    float *plane, long width, long height, long pad, const float *restrict radii, long reach, long first, long count,
    const float *restrict above, const float *restrict below, float *restrict ring, float *restrict areas, long *restrict runs);

/// The transpose of a disc mean: rows `first` ..< `first + count` of `out` (`width` ×
/// `height` samples, written whole) are the sum of every sample of `in` spread evenly
/// over a disc of its own radius, `radii[y · width + x]` samples (at most `reach` + 1)
/// around it: rows |dy| < radius, each a span of √(radius² − dy²) either side of the
/// sample's centre, the samples at its ends taking the part of them it covers, and what
/// falls outside the plane lost. A sample is spread whole over each row of its disc: the
/// caller divides by the disc's area. Only columns `spans[2·y]` ..< `spans[2·y + 1]` of
/// row y are read, and samples whose fourth float is 0 are passed over. `diff` has room
/// for 4·(`width` + 1) doubles.
void camlib_disc_scatter4(
    const float *restrict in, long width, long height, const float *restrict radii, const long *restrict spans, long reach,
    long first, long count, float *restrict out, double *restrict diff);
