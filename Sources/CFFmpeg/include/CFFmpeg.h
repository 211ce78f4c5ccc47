#ifndef CFFMPEG_H
#define CFFMPEG_H

// FFmpeg (libavformat, libavcodec, libavutil, libswscale, and libavdevice for sound
// input; Debian bookworm ships 5.1).
//
// Loaded with dlopen when camlib first reads or writes a movie (or scales pixels), not
// linked (the loader is cffmpeg_loader.c): libavformat and libavcodec bring about 135 shared libraries (network
// protocols, every codec), and binding them cost every camlib process about 55 ms before
// main, a `camlib query` included. So the functions camlib calls are reached through
// CFFmpegFunctions, filled by CFFmpeg_load; their types come from the headers below
// (__typeof__), so a call is checked as if it were direct.
//
// Ownership, from the headers: avformat_open_input/avformat_close_input,
// avcodec_alloc_context3/avcodec_free_context, av_packet_alloc/av_packet_free,
// av_frame_alloc/av_frame_free, sws_getContext/sws_freeContext.
#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/display.h>
#include <libavutil/dict.h>
#include <libavutil/error.h>
#include <libavutil/imgutils.h>
#include <libavutil/log.h>
#include <libswscale/swscale.h>
#include <libavdevice/avdevice.h>
#include <libavutil/macros.h>
#include <stddef.h>
#include <stdio.h>

// Every FFmpeg function camlib calls. A new call needs its name here.
#define CFFMPEG_FUNCTIONS(X) \
    X(av_channel_layout_copy) \
    X(av_channel_layout_default) \
    X(av_d2q) \
    X(av_dict_free) \
    X(av_dict_get) \
    X(av_dict_set) \
    X(av_find_input_format) \
    X(av_display_matrix_flip) \
    X(av_display_rotation_get) \
    X(av_display_rotation_set) \
    X(av_frame_alloc) \
    X(av_frame_free) \
    X(av_frame_get_buffer) \
    X(av_frame_make_writable) \
    X(av_frame_unref) \
    X(av_interleaved_write_frame) \
    X(av_log_set_level) \
    X(av_new_packet) \
    X(av_packet_alloc) \
    X(av_packet_free) \
    X(av_packet_rescale_ts) \
    X(av_packet_unref) \
    X(av_read_frame) \
    X(av_stream_get_side_data) \
    X(av_stream_new_side_data) \
    X(av_strerror) \
    X(av_write_trailer) \
    X(avcodec_alloc_context3) \
    X(avcodec_find_decoder) \
    X(avcodec_find_encoder_by_name) \
    X(avcodec_free_context) \
    X(avcodec_get_name) \
    X(avcodec_open2) \
    X(avcodec_parameters_from_context) \
    X(avcodec_parameters_to_context) \
    X(avcodec_receive_frame) \
    X(avcodec_receive_packet) \
    X(avcodec_send_frame) \
    X(avcodec_send_packet) \
    X(avformat_alloc_context) \
    X(avformat_alloc_output_context2) \
    X(avformat_close_input) \
    X(avformat_find_stream_info) \
    X(avformat_free_context) \
    X(avformat_new_stream) \
    X(avformat_open_input) \
    X(avformat_write_header) \
    X(avio_closep) \
    X(avio_open) \
    X(sws_freeContext) \
    X(sws_getCoefficients) \
    X(sws_getContext) \
    X(sws_scale) \
    X(sws_setColorspaceDetails)

#define CFFMPEG_FIELD(name) __typeof__(&name) _Nonnull name;
typedef struct CFFmpegFunctions {
    CFFMPEG_FUNCTIONS(CFFMPEG_FIELD)
} CFFmpegFunctions;
#undef CFFMPEG_FIELD

// Opens the four libraries, by the sonames of the headers camlib was built with, and
// finds every function of CFFMPEG_FUNCTIONS. On success returns the table (the same one
// on every call; the libraries stay loaded for the process). On failure returns NULL
// and writes what is missing into `error`. Not thread-safe: call it once (Swift does,
// through a lazy static).
const CFFmpegFunctions *_Nullable CFFmpeg_load(char *_Nonnull error, size_t errorSize);

// libavdevice (ALSA and PulseAudio inputs), only for capture with the system's sound:
// loaded apart, as it brings the sound servers' client libraries. Returns 1 once its
// devices are registered with libavformat (CFFmpeg_load first); 0 with `error` set.
int CFFmpeg_loadDevices(char *_Nonnull error, size_t errorSize);

// Macros Swift cannot import.
int CFFmpeg_AVERROR_EOF(void);
int CFFmpeg_AVERROR_EAGAIN(void);
int64_t CFFmpeg_AV_NOPTS_VALUE(void);
int CFFmpeg_AV_TIME_BASE(void);

#endif
