/* Chapter 16, optimized: each thread loads and stores 16 pixels as one
 * 16-byte vector (uint4), so a warp request moves 512 bytes, not 32. --width
 * picks 1, 2, 4, 8, 12 or 16 bytes per access; --pad 1 stores 12-byte records
 * padded to 16 (an __align__(16) struct). */
#include "problem.h"
#include "cuda_check.h"

/* Flip every bit of a record: 255 - p for each of its bytes. */
__device__ unsigned char negate(unsigned char v) { return (unsigned char)~v; }
__device__ unsigned short negate(unsigned short v) { return (unsigned short)~v; }
__device__ unsigned negate(unsigned v) { return ~v; }
__device__ uint2 negate(uint2 v) { return make_uint2(~v.x, ~v.y); }
__device__ uint4 negate(uint4 v) { return make_uint4(~v.x, ~v.y, ~v.z, ~v.w); }

/* Twelve pixels: as a plain struct it is 4-byte aligned and moves as three
 * 4-byte accesses; padded to 16 bytes and __align__(16), as one access. */
struct bytes12 { unsigned w[3]; };
struct __align__(16) bytes12_padded { unsigned w[3]; unsigned unused; };
template <typename R> __device__ R negate12(R v)
{
    v.w[0] = ~v.w[0], v.w[1] = ~v.w[1], v.w[2] = ~v.w[2];
    return v;
}
__device__ bytes12 negate(bytes12 v) { return negate12(v); }
__device__ bytes12_padded negate(bytes12_padded v) { return negate12(v); }

// [kernel]
/* R: one record of DATA pixels (sizeof(R) >= DATA where it is padded). The
 * records start `head` bytes into the image, on a 16-byte boundary, so each
 * is aligned to its size; the bytes before them (a start off that boundary)
 * and after the last full record go one byte each. */
template <typename R, int DATA>
__global__ void negative_kernel(unsigned char *out, const unsigned char *in, int head,
                                long records, int tail)
{
    long i = blockIdx.x * (long)blockDim.x + threadIdx.x;
    R *out_r = (R *)(out + head);
    const R *in_r = (const R *)(in + head);
    if (i < records)
        out_r[i] = negate(in_r[i]);
    if (i < head)
        out[i] = 255 - in[i];
    if (i < tail)
        ((unsigned char *)(out_r + records))[i] = 255 - ((const unsigned char *)(in_r + records))[i];
}
// [kernel]

template <typename R, int DATA>
static void launch(struct image *t, cudaStream_t s)
{
    long threads = t->records > 16 ? t->records : 16; /* at least one per head or tail pixel */
    negative_kernel<R, DATA><<<image_blocks(threads), BLOCK, 0, s>>>(
        t->out, t->in, t->head, t->records, (int)(t->n - t->head - t->records * DATA));
    CHECK_LAUNCH();
}

static void run(void *data, cudaStream_t s)
{
    struct image *t = (struct image *)data;
    switch (t->width) { /* the knob's rule admits only these */
    case 1: launch<unsigned char, 1>(t, s); break;
    case 2: launch<unsigned short, 2>(t, s); break;
    case 4: launch<unsigned, 4>(t, s); break;
    case 8: launch<uint2, 8>(t, s); break;
    case 12:
        if (t->pad)
            launch<bytes12_padded, 12>(t, s);
        else
            launch<bytes12, 12>(t, s);
        break;
    default: launch<uint4, 16>(t, s); break;
    }
}

/* Records of --width pixels; padded to 16 bytes where --pad asks. */
static void prepare(void *data)
{
    struct image *t = (struct image *)data;
    int padded = t->width == 12 && t->pad;
    image_layout(t, t->width, padded ? 16 : t->width);
}

int main(int argc, char **argv)
{
    static const struct variant v = {"optimized", run, prepare, NULL};
    return run_variant(argc, argv, &PROBLEM, &v);
}
