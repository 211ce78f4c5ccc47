#include "CRowLoops.h"
#include "clones.h"
#include "rounding.h"

// The tone is arithmetic rather than a table, so that it runs in vector registers; a
// whole luma never lies halfway between levels (255 is odd), so the rounding cannot tip
// either way.
CLONES void camlib_comic_tones(
    const float *restrict r, const float *restrict g, const float *restrict b, long count, float steps,
    float *restrict l, float *restrict tone) {
    const float kr = 0.2126f, kg = 0.7152f, kb = 0.0722f;
    // 0.12·255 up to 255 in `steps` steps: divisions once, not in every lane.
    const float perLevel = 224.4f / steps, levelsPerValue = steps / 255;
    for (long i = 0; i < count; i++) {
        float lx = kr * r[i] + kg * g[i] + kb * b[i];
        l[i] = lx;
        tone[i] = 30.6f + whole(whole(clamp(lx, 0, 255)) * levelsPerValue) * perLevel;
    }
}

CLONES void camlib_comic_colours(
    const float *restrict r, const float *restrict g, const float *restrict b, const float *restrict mask,
    const float *restrict dotted, const float *restrict l, const float *restrict tone, long count,
    const camlib_comic_look *look, float *restrict red, float *restrict green, float *restrict blue) {
    const float ink = look->ink, slope = look->slope, saturation = look->saturation;
    const float inkRed = look->inkRed, inkGreen = look->inkGreen, inkBlue = look->inkBlue;
    for (long i = 0; i < count; i++) {
        // A dot darkens the fill by `ink`; a line covers it.
        float darken = 1 - ink * dotted[i];
        float c = clamp((mask[i] - 0.5f) * slope + 0.5f, 0, 1);
        float fr = clamp(tone[i] + saturation * (r[i] - l[i]), 0, 255) * darken;
        float fg = clamp(tone[i] + saturation * (g[i] - l[i]), 0, 255) * darken;
        float fb = clamp(tone[i] + saturation * (b[i] - l[i]), 0, 255) * darken;
        red[i] = fr + c * (inkRed - fr);
        green[i] = fg + c * (inkGreen - fg);
        blue[i] = fb + c * (inkBlue - fb);
    }
}

CLONES void camlib_comic_luma(
    const float *restrict red, const float *restrict green, const float *restrict blue, long count,
    float kr, float kg, float kb, float scale, float offset, uint8_t *restrict luma) {
    for (long i = 0; i < count; i++) luma[i] = byte((kr * red[i] + kg * green[i] + kb * blue[i]) * scale + offset);
}

CLONES void camlib_comic_chroma(
    const float *restrict evenRed, const float *restrict evenGreen, const float *restrict evenBlue,
    const float *restrict oddRed, const float *restrict oddGreen, const float *restrict oddBlue, long count,
    float kr, float kg, float kb, float cbScale, float crScale, uint8_t *restrict cb, uint8_t *restrict cr) {
    for (long i = 0; i < count / 2; i++) {
        long x = 2 * i;
        float mr = ((evenRed[x] + oddRed[x]) + (evenRed[x + 1] + oddRed[x + 1])) * 0.25f;
        float mg = ((evenGreen[x] + oddGreen[x]) + (evenGreen[x + 1] + oddGreen[x + 1])) * 0.25f;
        float mb = ((evenBlue[x] + oddBlue[x]) + (evenBlue[x + 1] + oddBlue[x + 1])) * 0.25f;
        float my = kr * mr + kg * mg + kb * mb;
        cb[i] = byte(clamp((mb - my) * cbScale + 128, 0, 255));
        cr[i] = byte(clamp((mr - my) * crScale + 128, 0, 255));
    }
}

CLONES void camlib_comic_bytes(
    const float *restrict red, const float *restrict green, const float *restrict blue, long count, uint8_t *restrict rgb) {
    for (long i = 0; i < count; i++) {
        rgb[3 * i] = byte(red[i]);
        rgb[3 * i + 1] = byte(green[i]);
        rgb[3 * i + 2] = byte(blue[i]);
    }
}
