/*
 * png-check.c - is a screenshot a picture?  For tests/e2e/report.sh.
 *
 * Usage: png-check FILE [RRGGBB...]
 * Decodes an 8-bit RGB or RGBA PNG (what headless Chromium's --screenshot
 * writes) with zlib, undoes the row filters, and prints its width, height,
 * the number of distinct colours (counted up to PNG_MAX_COLOURS) and the
 * share of pixels that are not the top-left pixel's colour.  Exits 1 when
 * the picture is one colour (a blank page), or when a colour named on the
 * command line appears nowhere (a page whose SVG was not drawn); 2 when
 * the file is no PNG it can read.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define PNG_MAX_COLOURS 32768 /* distinct colours counted (the set holds twice as many slots) */
#define PNG_SET_SLOTS	(2 * PNG_MAX_COLOURS)
#define PNG_MAX_BYTES	(64u << 20) /* the file, and the pixels, at most */

struct png_set {
	uint32_t c[PNG_SET_SLOTS];
	unsigned char used[PNG_SET_SLOTS];
	size_t n;
};

/* The slot of colour c: where it is, or the free one where it would go. */
static size_t png_slot(const struct png_set *s, uint32_t c)
{
	size_t i = (size_t)((c * 2654435761u) % PNG_SET_SLOTS);

	while (s->used[i] && s->c[i] != c)
		i = (i + 1) % PNG_SET_SLOTS;
	return i;
}

static void png_add(struct png_set *s, uint32_t c)
{
	size_t i = png_slot(s, c);

	if (!s->used[i] && s->n < PNG_MAX_COLOURS) {
		s->used[i] = 1;
		s->c[i] = c;
		s->n++;
	}
}

static uint32_t png_be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static unsigned char *png_read(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf = malloc(PNG_MAX_BYTES);

	if (f == NULL || buf == NULL) {
		free(buf);
		if (f)
			fclose(f);
		return NULL;
	}
	*len = fread(buf, 1, PNG_MAX_BYTES, f);
	fclose(f);
	return buf;
}

static int png_paeth(int a, int b, int c)
{
	int p = a + b - c, pa = abs(p - a), pb = abs(p - b), pc = abs(p - c);

	return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

/* Undoes the filter of each row in place; rows start with their filter byte. */
static int png_unfilter(unsigned char *px, uint32_t w, uint32_t h, int bpp)
{
	size_t stride = (size_t)w * bpp + 1;

	for (uint32_t y = 0; y < h; y++) {
		unsigned char *row = px + y * stride + 1, *up = y ? row - stride : NULL;
		int ft = row[-1];

		for (size_t i = 0; i < (size_t)w * bpp; i++) {
			int a = i >= (size_t)bpp ? row[i - bpp] : 0, b = up ? up[i] : 0;
			int c = up && i >= (size_t)bpp ? up[i - bpp] : 0;
			int add[] = {0, a, b, (a + b) / 2, png_paeth(a, b, c)};

			if (ft > 4)
				return -1;
			row[i] = (unsigned char)(row[i] + add[ft]);
		}
	}
	return 0;
}

/* A decoded picture: rows of w pixels of bpp bytes, each row after its filter byte. */
struct png_image {
	uint32_t w, h;
	int bpp;
	unsigned char *px;
};

/* The IHDR's size and format, and the IDAT chunks joined, from file[0..len). */
static size_t png_chunks(const unsigned char *file, size_t len, struct png_image *im,
			 unsigned char *idat)
{
	size_t nidat = 0;

	for (size_t p = 8; p + 12 <= len;) {
		uint32_t n = png_be32(file + p);

		if (n > len - p - 12)
			break;
		if (memcmp(file + p + 4, "IHDR", 4) == 0 && n >= 13) {
			im->w = png_be32(file + p + 8);
			im->h = png_be32(file + p + 12);
			im->bpp = file[p + 16] != 8   ? 0
				  : file[p + 17] == 6 ? 4
				  : file[p + 17] == 2 ? 3
						      : 0;
		} else if (memcmp(file + p + 4, "IDAT", 4) == 0) {
			memcpy(idat + nidat, file + p + 8, n);
			nidat += n;
		}
		p += 12 + (size_t)n;
	}
	return nidat;
}

/* 0, or 2 with a message: the pixels of an 8-bit RGB or RGBA PNG into *im. */
static int png_decode(const char *path, struct png_image *im)
{
	size_t len = 0, nidat;
	unsigned char *file = png_read(path, &len), *idat = NULL;
	uLongf pxlen;
	int rc = 2;

	memset(im, 0, sizeof *im);
	if (file == NULL || len < 8 || memcmp(file, "\x89PNG\r\n\x1a\n", 8) != 0) {
		fprintf(stderr, "png-check: %s: not a PNG\n", path);
		goto out;
	}
	if ((idat = malloc(len)) == NULL)
		goto out;
	nidat = png_chunks(file, len, im, idat);
	if (im->bpp == 0 || im->w == 0 || im->h == 0 ||
	    ((uint64_t)im->w * (uint64_t)im->bpp + 1) * im->h > PNG_MAX_BYTES) {
		fprintf(stderr, "png-check: %s: not an 8-bit RGB or RGBA PNG\n", path);
		goto out;
	}
	pxlen = (uLongf)(((size_t)im->w * im->bpp + 1) * im->h);
	im->px = malloc(pxlen);
	if (im->px == NULL || uncompress(im->px, &pxlen, idat, (uLong)nidat) != Z_OK ||
	    png_unfilter(im->px, im->w, im->h, im->bpp) != 0) {
		fprintf(stderr, "png-check: %s: cannot decode\n", path);
		goto out;
	}
	rc = 0;
out:
	free(idat);
	free(file);
	return rc;
}

int main(int argc, char **argv)
{
	static struct png_set colours;
	struct png_image im;
	size_t other = 0;
	uint32_t first = 0;
	int missing = 0;

	if (argc < 2 || png_decode(argv[1], &im) != 0)
		return 2;
	for (uint32_t y = 0; y < im.h; y++)
		for (uint32_t x = 0; x < im.w; x++) {
			const unsigned char *p =
			    im.px + y * ((size_t)im.w * im.bpp + 1) + 1 + (size_t)x * im.bpp;
			uint32_t c = (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2];

			if (x == 0 && y == 0)
				first = c;
			other += c != first;
			png_add(&colours, c);
		}
	printf("%s: %ux%u, %zu colours, %.1f%% not the background\n", argv[1], im.w, im.h,
	       colours.n, 100.0 * (double)other / ((double)im.w * im.h));
	for (int i = 2; i < argc; i++) {
		uint32_t want = (uint32_t)strtoul(argv[i], NULL, 16);

		if (!colours.used[png_slot(&colours, want)]) {
			printf("%s: colour %s appears nowhere\n", argv[1], argv[i]);
			missing = 1;
		}
	}
	free(im.px);
	return colours.n <= 1 || missing ? 1 : 0;
}
