// libv4l2 (Debian's libv4l-dev) and the kernel's V4L2 API.
// Ownership, from libv4l2.h: v4l2_open → v4l2_close; v4l2_mmap → v4l2_munmap (one call
// per buffer, the length QUERYBUF gave). libv4l2 converts MJPEG/YUYV/... to the RGB24
// the caller asks for in S_FMT, and then reports the converted formats from ENUM_FMT
// flagged V4L2_FMT_FLAG_EMULATED. The ioctl argument must be a valid struct pointer.
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/videodev2.h>
#include <libv4l2.h>

// libv4l2's entry points are variadic, which Swift cannot call.
static inline int cv4l2_open(const char *path, int flags) { return v4l2_open(path, flags); }
static inline int cv4l2_ioctl(int fd, unsigned long request, void *arg) { return v4l2_ioctl(fd, request, arg); }

// The ioctl request numbers are _IOR/_IOWR macros, which Swift cannot import.
static inline unsigned long cv4l2_VIDIOC_QUERYCAP(void) { return VIDIOC_QUERYCAP; }
static inline unsigned long cv4l2_VIDIOC_ENUM_FMT(void) { return VIDIOC_ENUM_FMT; }
static inline unsigned long cv4l2_VIDIOC_ENUM_FRAMESIZES(void) { return VIDIOC_ENUM_FRAMESIZES; }
static inline unsigned long cv4l2_VIDIOC_ENUM_FRAMEINTERVALS(void) { return VIDIOC_ENUM_FRAMEINTERVALS; }
static inline unsigned long cv4l2_VIDIOC_G_FMT(void) { return VIDIOC_G_FMT; }
static inline unsigned long cv4l2_VIDIOC_S_FMT(void) { return VIDIOC_S_FMT; }
static inline unsigned long cv4l2_VIDIOC_G_PARM(void) { return VIDIOC_G_PARM; }
static inline unsigned long cv4l2_VIDIOC_S_PARM(void) { return VIDIOC_S_PARM; }
static inline unsigned long cv4l2_VIDIOC_REQBUFS(void) { return VIDIOC_REQBUFS; }
static inline unsigned long cv4l2_VIDIOC_QUERYBUF(void) { return VIDIOC_QUERYBUF; }
static inline unsigned long cv4l2_VIDIOC_QBUF(void) { return VIDIOC_QBUF; }
static inline unsigned long cv4l2_VIDIOC_DQBUF(void) { return VIDIOC_DQBUF; }
static inline unsigned long cv4l2_VIDIOC_STREAMON(void) { return VIDIOC_STREAMON; }
static inline unsigned long cv4l2_VIDIOC_STREAMOFF(void) { return VIDIOC_STREAMOFF; }

// Unions Swift sees only as opaque fields: the frame-size and frame-interval members.
static inline struct v4l2_frmsize_discrete cv4l2_frmsize_discrete(const struct v4l2_frmsizeenum *e) { return e->discrete; }
static inline struct v4l2_frmsize_stepwise cv4l2_frmsize_stepwise(const struct v4l2_frmsizeenum *e) { return e->stepwise; }
static inline struct v4l2_fract cv4l2_frmival_discrete(const struct v4l2_frmivalenum *e) { return e->discrete; }
static inline struct v4l2_frmival_stepwise cv4l2_frmival_stepwise(const struct v4l2_frmivalenum *e) { return e->stepwise; }
static inline struct v4l2_pix_format *cv4l2_format_pix(struct v4l2_format *f) { return &f->fmt.pix; }
static inline struct v4l2_captureparm *cv4l2_parm_capture(struct v4l2_streamparm *p) { return &p->parm.capture; }
static inline __u32 cv4l2_buffer_offset(const struct v4l2_buffer *b) { return b->m.offset; }
