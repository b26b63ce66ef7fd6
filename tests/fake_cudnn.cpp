// A stand-in for libcudnn on the host, for tests/test_cudnn.py.
//
// It exports the functions dlbook/backend/cudnn.py calls, with cuDNN's
// signatures, and computes the convolutions on host memory (the "device
// pointers" the tests hand over are NumPy buffers).  Every descriptor is
// validated the way cuDNN does (dimensions, the output size a convolution
// gives, channel counts against the group count), so wrong arguments from
// the ctypes layer fail here as they would on a GPU.  Only 4-d tensors
// (1-D and 2-D convolutions), float32 and float64.
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

namespace {

const int kSuccess = 0, kBadParam = 2000, kNotSupported = 3000;

struct Tensor { int dtype, nb, dims[8], strides[8]; };
struct Filter { int dtype, format, nb, dims[8]; };
struct Conv { int n, pad[8], stride[8], dilation[8], mode, compute, groups, math; };
struct Perf { int algo, status; float time; size_t memory; int determinism, math, reserved[3]; };

int out_size(int in, int k, int pad, int stride, int dil) {
  return (in + 2 * pad - dil * (k - 1) - 1) / stride + 1;
}

// x (N, C, H, W), w (F, C/g, KH, KW), y (N, F, OH, OW) consistent?
int check(const Tensor* x, const Filter* w, const Conv* c, const Tensor* y) {
  if (x->nb != 4 || y->nb != 4 || w->nb != 4 || c->n != 2) return kNotSupported;
  if (x->dtype != w->dtype || x->dtype != y->dtype) return kBadParam;
  if (c->mode != 1) return kBadParam;  // cross-correlation only
  int g = c->groups;
  if (g < 1 || x->dims[1] != w->dims[1] * g || w->dims[0] % g) return kBadParam;
  if (y->dims[0] != x->dims[0] || y->dims[1] != w->dims[0]) return kBadParam;
  for (int a = 0; a < 2; ++a)
    if (y->dims[2 + a] != out_size(x->dims[2 + a], w->dims[2 + a], c->pad[a],
                                   c->stride[a], c->dilation[a]))
      return kBadParam;
  for (const Tensor* t : {x, y}) {  // packed NCHW strides
    int step = 1;
    for (int i = 3; i >= 0; --i) {
      if (t->strides[i] != step) return kNotSupported;
      step *= t->dims[i];
    }
  }
  return kSuccess;
}

// algorithm 0 needs no workspace (and is then handed a null pointer)
size_t workspace(int algo) { return algo == 0 ? 0 : 256 * (size_t)(algo + 1); }

// which: 0 forward (out = y), 1 data gradient (out = x), 2 weight gradient
template <typename T>
void run(int which, const Tensor* xd, const Filter* wd, const Conv* c,
         const Tensor* yd, T* x, T* w, T* y, T alpha, T beta) {
  int N = xd->dims[0], C = xd->dims[1], H = xd->dims[2], W = xd->dims[3];
  int F = wd->dims[0], Cg = wd->dims[1], KH = wd->dims[2], KW = wd->dims[3];
  int OH = yd->dims[2], OW = yd->dims[3], G = c->groups, Fg = F / G;
  size_t count = which == 0 ? (size_t)N * F * OH * OW
               : which == 1 ? (size_t)N * C * H * W : (size_t)F * Cg * KH * KW;
  T* out = which == 0 ? y : which == 1 ? x : w;
  T* sum = (T*)calloc(count, sizeof(T));
  for (int n = 0; n < N; ++n)
    for (int f = 0; f < F; ++f)
      for (int oh = 0; oh < OH; ++oh)
        for (int ow = 0; ow < OW; ++ow)
          for (int cg = 0; cg < Cg; ++cg)
            for (int kh = 0; kh < KH; ++kh)
              for (int kw = 0; kw < KW; ++kw) {
                int h = oh * c->stride[0] + kh * c->dilation[0] - c->pad[0];
                int v = ow * c->stride[1] + kw * c->dilation[1] - c->pad[1];
                if (h < 0 || h >= H || v < 0 || v >= W) continue;
                int ch = (f / Fg) * Cg + cg;
                size_t xi = (((size_t)n * C + ch) * H + h) * W + v;
                size_t wi = (((size_t)f * Cg + cg) * KH + kh) * KW + kw;
                size_t yi = (((size_t)n * F + f) * OH + oh) * OW + ow;
                if (which == 0) sum[yi] += x[xi] * w[wi];
                else if (which == 1) sum[xi] += y[yi] * w[wi];
                else sum[wi] += y[yi] * x[xi];
              }
  for (size_t i = 0; i < count; ++i)
    out[i] = alpha * sum[i] + (beta != 0 ? beta * out[i] : 0);
  free(sum);
}

int execute(int which, const void* alpha, const Tensor* xd, void* x,
            const Filter* wd, void* w, const Conv* c, int algo, void* ws,
            size_t ws_size, const void* beta, const Tensor* yd, void* y) {
  int status = check(xd, wd, c, yd);
  if (status) return status;
  if (algo < 0 || algo > 2 || ws_size < workspace(algo)) return kBadParam;
  if ((workspace(algo) > 0) != (ws != nullptr)) return kBadParam;
  if (xd->dtype == 0)
    run<float>(which, xd, wd, c, yd, (float*)x, (float*)w, (float*)y,
               *(const float*)alpha, *(const float*)beta);
  else if (xd->dtype == 1)
    run<double>(which, xd, wd, c, yd, (double*)x, (double*)w, (double*)y,
                *(const double*)alpha, *(const double*)beta);
  else
    return kNotSupported;
  return kSuccess;
}

int heuristics(const Tensor* x, const Filter* w, const Conv* c,
               const Tensor* y, int requested, int* returned, Perf* perf) {
  int status = check(x, w, c, y);
  if (status) return status;
  // algorithm 7 "fails", 2 is not deterministic, then 1 and 0 work
  int algos[4] = {7, 2, 1, 0};
  int statuses[4] = {kNotSupported, kSuccess, kSuccess, kSuccess};
  int deterministic[4] = {1, 0, 1, 1};
  *returned = requested < 4 ? requested : 4;
  for (int i = 0; i < *returned; ++i) {
    std::memset(&perf[i], 0, sizeof(Perf));
    perf[i].algo = algos[i];
    perf[i].status = statuses[i];
    perf[i].determinism = deterministic[i];
  }
  return kSuccess;
}

}  // namespace

extern "C" {

size_t cudnnGetVersion() { return 90001; }
const char* cudnnGetErrorString(int s) {
  return s == kSuccess ? "CUDNN_STATUS_SUCCESS"
         : s == kBadParam ? "CUDNN_STATUS_BAD_PARAM" : "CUDNN_STATUS_NOT_SUPPORTED";
}
int cudnnCreate(void** handle) { *handle = std::malloc(8); return kSuccess; }
int cudnnSetStream(void* handle, void*) { return handle ? kSuccess : kBadParam; }

int cudnnCreateTensorDescriptor(void** d) { *d = std::calloc(1, sizeof(Tensor)); return 0; }
int cudnnDestroyTensorDescriptor(void* d) { std::free(d); return 0; }
int cudnnSetTensorNdDescriptor(void* d, int dtype, int nb, const int* dims,
                               const int* strides) {
  Tensor* t = (Tensor*)d;
  if (nb < 3 || nb > 8) return kBadParam;
  for (int i = 0; i < nb; ++i) if (dims[i] <= 0 || strides[i] <= 0) return kBadParam;
  t->dtype = dtype; t->nb = nb;
  std::memcpy(t->dims, dims, nb * sizeof(int));
  std::memcpy(t->strides, strides, nb * sizeof(int));
  return kSuccess;
}
int cudnnCreateFilterDescriptor(void** d) { *d = std::calloc(1, sizeof(Filter)); return 0; }
int cudnnDestroyFilterDescriptor(void* d) { std::free(d); return 0; }
int cudnnSetFilterNdDescriptor(void* d, int dtype, int format, int nb, const int* dims) {
  Filter* f = (Filter*)d;
  if (nb < 3 || nb > 8 || format != 0) return kBadParam;
  for (int i = 0; i < nb; ++i) if (dims[i] <= 0) return kBadParam;
  f->dtype = dtype; f->format = format; f->nb = nb;
  std::memcpy(f->dims, dims, nb * sizeof(int));
  return kSuccess;
}
int cudnnCreateConvolutionDescriptor(void** d) {
  Conv* c = (Conv*)std::calloc(1, sizeof(Conv));
  c->groups = 1;
  *d = c;
  return 0;
}
int cudnnDestroyConvolutionDescriptor(void* d) { std::free(d); return 0; }
int cudnnSetConvolutionNdDescriptor(void* d, int n, const int* pad, const int* stride,
                                    const int* dilation, int mode, int compute) {
  Conv* c = (Conv*)d;
  if (n < 1 || n > 6) return kBadParam;
  for (int i = 0; i < n; ++i)
    if (pad[i] < 0 || stride[i] < 1 || dilation[i] < 1) return kBadParam;
  c->n = n; c->mode = mode; c->compute = compute;
  std::memcpy(c->pad, pad, n * sizeof(int));
  std::memcpy(c->stride, stride, n * sizeof(int));
  std::memcpy(c->dilation, dilation, n * sizeof(int));
  return kSuccess;
}
int cudnnSetConvolutionGroupCount(void* d, int g) {
  if (g < 1) return kBadParam;
  ((Conv*)d)->groups = g;
  return kSuccess;
}
int cudnnSetConvolutionMathType(void* d, int m) {
  if (m < 0 || m > 3) return kBadParam;
  ((Conv*)d)->math = m;
  return kSuccess;
}

int cudnnGetConvolutionForwardAlgorithm_v7(void*, void* x, void* w, void* c, void* y,
                                           int req, int* ret, Perf* perf) {
  return heuristics((Tensor*)x, (Filter*)w, (Conv*)c, (Tensor*)y, req, ret, perf);
}
int cudnnGetConvolutionBackwardDataAlgorithm_v7(void*, void* w, void* dy, void* c,
                                                void* dx, int req, int* ret, Perf* perf) {
  return heuristics((Tensor*)dx, (Filter*)w, (Conv*)c, (Tensor*)dy, req, ret, perf);
}
int cudnnGetConvolutionBackwardFilterAlgorithm_v7(void*, void* x, void* dy, void* c,
                                                  void* dw, int req, int* ret, Perf* perf) {
  return heuristics((Tensor*)x, (Filter*)dw, (Conv*)c, (Tensor*)dy, req, ret, perf);
}
int cudnnGetConvolutionForwardWorkspaceSize(void*, void* x, void* w, void* c, void* y,
                                            int algo, size_t* size) {
  int s = check((Tensor*)x, (Filter*)w, (Conv*)c, (Tensor*)y);
  *size = workspace(algo);
  return s;
}
int cudnnGetConvolutionBackwardDataWorkspaceSize(void*, void* w, void* dy, void* c,
                                                 void* dx, int algo, size_t* size) {
  int s = check((Tensor*)dx, (Filter*)w, (Conv*)c, (Tensor*)dy);
  *size = workspace(algo);
  return s;
}
int cudnnGetConvolutionBackwardFilterWorkspaceSize(void*, void* x, void* dy, void* c,
                                                   void* dw, int algo, size_t* size) {
  int s = check((Tensor*)x, (Filter*)dw, (Conv*)c, (Tensor*)dy);
  *size = workspace(algo);
  return s;
}

int cudnnConvolutionForward(void*, const void* alpha, void* xd, void* x, void* wd,
                            void* w, void* c, int algo, void* ws, size_t ws_size,
                            const void* beta, void* yd, void* y) {
  return execute(0, alpha, (Tensor*)xd, x, (Filter*)wd, w, (Conv*)c, algo, ws,
                 ws_size, beta, (Tensor*)yd, y);
}
int cudnnConvolutionBackwardData(void*, const void* alpha, void* wd, void* w, void* dyd,
                                 void* dy, void* c, int algo, void* ws, size_t ws_size,
                                 const void* beta, void* dxd, void* dx) {
  return execute(1, alpha, (Tensor*)dxd, dx, (Filter*)wd, w, (Conv*)c, algo, ws,
                 ws_size, beta, (Tensor*)dyd, dy);
}
int cudnnConvolutionBackwardFilter(void*, const void* alpha, void* xd, void* x, void* dyd,
                                   void* dy, void* c, int algo, void* ws, size_t ws_size,
                                   const void* beta, void* dwd, void* dw) {
  return execute(2, alpha, (Tensor*)xd, x, (Filter*)dwd, dw, (Conv*)c, algo, ws,
                 ws_size, beta, (Tensor*)dyd, dy);
}

}  // extern "C"
