/*
 * queries-svg.c - a small SVG writer for the report's pictures, and HTML escaping.
 *
 * An SVG document is written into a buffer: rectangles, lines and text,
 * every colour an attribute (no style sheet, no url(), nothing external), so
 * the same bytes work inline in HTML and as a data: image in Markdown.
 * Every text (labels, <title> tooltips) goes through queries_html_escape:
 * sanitized first (control bytes, invalid UTF-8, bidi marks made visible),
 * then & < > " ' escaped, and ( = ` too, so no log text can spell markup,
 * an attribute or a CSS url( in the document.
 */
#include "queries-report.h"

#include <assert.h>

void queries_html_escape(struct lt_buf *b, const char *s, size_t len)
{
	struct lt_buf clean;

	lt_buf_init(&clean);
	lt_sanitize(&clean, s, len);
	for (size_t i = 0; i < clean.len; i++) {
		static const struct {
			char c;
			const char *as;
		} ents[] = {
		    {'&', "&amp;"},  {'<', "&lt;"},  {'>', "&gt;"},  {'"', "&quot;"},
		    {'\'', "&#39;"}, {'(', "&#40;"}, {'=', "&#61;"}, {'`', "&#96;"},
		};
		size_t k = 0;

		while (k < sizeof ents / sizeof *ents && ents[k].c != clean.ptr[i])
			k++;
		if (k < sizeof ents / sizeof *ents)
			lt_buf_printf(b, "%s", ents[k].as);
		else
			lt_buf_putc(b, clean.ptr[i]);
	}
	lt_buf_release(&clean);
}

static void svg_esc(struct svg *s, const char *text)
{
	queries_html_escape(s->b, text, strlen(text));
}

void queries_svg_begin(struct svg *s, struct lt_buf *b, int width, int height, const char *label)
{
	assert(width > 0 && height > 0);
	s->b = b;
	s->width = width;
	s->height = height;
	lt_buf_printf(b,
		      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\""
		      " viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		      width, height, width, height);
	svg_esc(s, label);
	lt_buf_printf(b, "\" font-family=\"sans-serif\">\n<title>");
	svg_esc(s, label);
	lt_buf_printf(
	    b, "</title>\n<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
	    width, height);
}

void queries_svg_rect(struct svg *s, double x, double y, double w, double h, const char *fill,
		      const char *title)
{
	lt_buf_printf(s->b,
		      "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"", x,
		      y, w, h, fill);
	if (title == NULL) {
		lt_buf_printf(s->b, "/>\n");
		return;
	}
	lt_buf_printf(s->b, "><title>");
	svg_esc(s, title);
	lt_buf_printf(s->b, "</title></rect>\n");
}

void queries_svg_line(struct svg *s, double x1, double y1, double x2, double y2, const char *stroke)
{
	lt_buf_printf(s->b,
		      "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\""
		      " stroke-width=\"1\"/>\n",
		      x1, y1, x2, y2, stroke);
}

void queries_svg_text(struct svg *s, double x, double y, int size, const char *anchor,
		      const char *fill, const char *text)
{
	lt_buf_printf(
	    s->b, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"%d\" text-anchor=\"%s\" fill=\"%s\">", x,
	    y, size, anchor, fill);
	svg_esc(s, text);
	lt_buf_printf(s->b, "</text>\n");
}

void queries_svg_end(struct svg *s)
{
	lt_buf_printf(s->b, "</svg>\n");
}
