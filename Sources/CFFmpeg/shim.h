// FFmpeg (libavformat, libavcodec, libavutil, libswscale; Debian bookworm ships 5.1).
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

// Macros Swift cannot import.
static inline int CFFmpeg_AVERROR_EOF(void) { return AVERROR_EOF; }
static inline int CFFmpeg_AVERROR_EAGAIN(void) { return AVERROR(EAGAIN); }
static inline int64_t CFFmpeg_AV_NOPTS_VALUE(void) { return AV_NOPTS_VALUE; }
static inline int CFFmpeg_AV_TIME_BASE(void) { return AV_TIME_BASE; }
