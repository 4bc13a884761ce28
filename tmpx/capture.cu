#include <cstdio>
#include <cuda_runtime.h>
__global__ void k(float *p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += 1; }
static void report(const char *what, cudaError_t e) { printf("%-60s %s\n", what, cudaGetErrorString(e)); }
int main() {
    float *a, *b; int n = 1 << 20;
    cudaMalloc(&a, n * 4); cudaMalloc(&b, n * 4);
    for (int nb = 0; nb < 2; nb++) {
      for (int mode = 0; mode < 3; mode++) {
        cudaStreamCaptureMode m = mode == 0 ? cudaStreamCaptureModeGlobal : mode == 1 ? cudaStreamCaptureModeThreadLocal : cudaStreamCaptureModeRelaxed;
        printf("== stream %s, mode %d\n", nb ? "non-blocking" : "blocking", mode);
        cudaStream_t s, s2; cudaStreamCreateWithFlags(&s, nb ? cudaStreamNonBlocking : cudaStreamDefault);
        cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
        cudaGraph_t g; cudaError_t e;
        // 1: all on s
        cudaStreamBeginCapture(s, m); k<<<n/256,256,0,s>>>(a,n); e = cudaStreamEndCapture(s, &g); report("all on s: end", e); cudaGetLastError();
        // 2: kernel on legacy stream during capture
        cudaStreamBeginCapture(s, m); k<<<n/256,256,0,s>>>(a,n); k<<<n/256,256>>>(b,n); report("legacy launch: launch", cudaGetLastError()); e = cudaStreamEndCapture(s, &g); report("legacy launch: end", e); cudaGetLastError(); cudaDeviceSynchronize(); cudaGetLastError();
        // 3: fork to s2 without join
        cudaEvent_t ev; cudaEventCreateWithFlags(&ev, cudaEventDisableTiming);
        cudaStreamBeginCapture(s, m); cudaEventRecord(ev, s); cudaStreamWaitEvent(s2, ev, 0); k<<<n/256,256,0,s2>>>(b,n); e = cudaStreamEndCapture(s, &g); report("fork, no join: end", e); cudaGetLastError(); cudaDeviceSynchronize(); cudaGetLastError();
        // 4: work on s2 with no fork (separate stream, not captured)
        cudaStreamBeginCapture(s, m); k<<<n/256,256,0,s>>>(a,n); k<<<n/256,256,0,s2>>>(b,n); report("unforked s2 launch", cudaGetLastError()); e = cudaStreamEndCapture(s, &g); report("unforked s2: end", e); cudaGetLastError(); cudaDeviceSynchronize(); cudaGetLastError();
        // 5: cudaMemcpy (sync) during capture
        cudaStreamBeginCapture(s, m); k<<<n/256,256,0,s>>>(a,n); report("sync cudaMemcpy", cudaMemcpy(b, a, 4, cudaMemcpyDeviceToDevice)); e = cudaStreamEndCapture(s, &g); report("sync memcpy: end", e); cudaGetLastError(); cudaDeviceSynchronize(); cudaGetLastError();
        // 6: cudaMallocAsync/cudaFreeAsync during capture
        cudaStreamBeginCapture(s, m); float *t; report("mallocAsync", cudaMallocAsync(&t, 4096, s)); k<<<1,256,0,s>>>(t,256); report("freeAsync", cudaFreeAsync(t, s)); e = cudaStreamEndCapture(s, &g); report("pool: end", e); cudaGetLastError(); cudaDeviceSynchronize(); cudaGetLastError();
        cudaStreamDestroy(s); cudaStreamDestroy(s2);
      }
    }
    return 0;
}
