/* Chapter 16: what naive.cu and optimized.cu share. */
#ifndef SIZE_ALIGN_PROBLEM_H
#define SIZE_ALIGN_PROBLEM_H

#include "chapter.h"

/* Threads per block, both programs. */
#define BLOCK 256

/* An 8-bit grayscale image of n pixels turned into its negative, 255 - p,
 * which for a byte is p with every bit flipped: so the same operation can be
 * applied to 1, 4, 8, 12 or 16 pixels at once by flipping whole words.
 *
 * On the device the image is `head` pixels one byte each, then a sequence of
 * records of `record` bytes, each stored `stride` bytes after the one before
 * (stride > record: padding), then the pixels left over after the last full
 * record. The program chooses the layout in prepare() through image_layout().
 * Both arrays start `offset` bytes (--offset) past a 256-byte aligned
 * allocation; where that start is not 16-byte aligned, the head holds the
 * pixels up to the next 16-byte boundary, so that every record is aligned to
 * its size (a vector access to an address that is not is illegal). */
struct image {
    long n;                 /* pixels */
    int width;              /* --width: bytes per access in the optimized program */
    int pad;                /* --pad: store 12-byte records padded to 16 */
    int offset;             /* --offset: bytes from the allocation to the image */
    int record, stride;     /* the layout: see above; 0 until image_layout() */
    int head;               /* pixels before the first record, up to a 16-byte boundary */
    long records;           /* full records: (n - head) / record */
    size_t span;            /* bytes from the image's start to its end, padding included */
    unsigned char *in_base, *out_base; /* the allocations */
    unsigned char *in, *out;           /* the images: base + offset */
    unsigned char *h_in;    /* host: the pixels */
};

extern const struct problem PROBLEM;

/* Allocate both device images in the program's layout and upload the input. */
void image_layout(struct image *t, int record, int stride);

static inline unsigned image_blocks(long threads) { return (unsigned)((threads + BLOCK - 1) / BLOCK); }

#endif
