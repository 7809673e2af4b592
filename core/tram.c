/* tram.c - the tram pool, and printing trams back as lines.
 *
 * Pool: a tram is one block (header, int64 data, raw text), so its size
 * varies with the line.  Sizes are rounded up to 8 bytes (all a tram needs
 * for alignment), which gives 128 classes up to 1 KiB; a canonical line
 * stores no text at all, not even its NUL; each class has a LIFO free list threaded through the
 * first word of its free blocks, and carves new blocks from 64 KiB slabs
 * shared by all classes (a slab's unused tail is simply abandoned when the
 * next block does not fit: at most one block's worth per slab).  Memory of a
 * class is never returned to the system before the pool is freed; a replay
 * holds about as many trams at every point as at its peak, so this is the
 * cheap and predictable choice.  Trams bigger than 1 KiB (long lines) are
 * rare and get their own g_malloc block, with a hidden prefix that links them
 * so that viper_tram_pool_free() can free the ones still alive.
 *
 * Printing: the raw text is re-emitted field by field, so runs of blanks
 * become one space; the TIME field may be replaced by the adjusted time,
 * printed with the fewest digits that read back the same double.  Whatever
 * the scanner accepts prints back to the same tram: the one byte that could
 * change meaning at the end of a printed line, a CR that belongs to the last
 * field, gets a blank after it.
 */
#include "core/tram.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* Under AddressSanitizer a released tram (and a slab's unused tail) is
 * poisoned, so a use after viper_tram_pool_release() is reported as one
 * instead of reading a recycled tram. */
#if defined(__SANITIZE_ADDRESS__)
#define VIPER_POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VIPER_POOL_ASAN 1
#endif
#endif
#ifdef VIPER_POOL_ASAN
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION ((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION ((p), (n))
#else
#define POISON(p, n) ((void) (p), (void) (n))
#define UNPOISON(p, n) ((void) (p), (void) (n))
#endif

#define GRAIN 8
#define N_CLASSES 128                     /* classes 1..128: 8..1024 bytes */
#define SLAB_SIZE (64 * 1024)
#define BIG_CLASS 0xffffu

typedef struct _FreeBlock FreeBlock;
struct _FreeBlock {
  FreeBlock *next;
};

typedef struct _BigHeader BigHeader;
struct _BigHeader {
  BigHeader *prev, *next;
  gsize size;
  gsize pad;                              /* keeps the tram 16-byte aligned (malloc's) */
};

struct _ViperTramPool {
  FreeBlock *free_list[N_CLASSES + 1];
  char *bump, *bump_end;                  /* unused part of the newest slab */
  GPtrArray *slabs;
  BigHeader *big;
  gsize bytes_in_use;
  gsize live;
};

G_STATIC_ASSERT (sizeof (ViperTram) % sizeof (gint64) == 0);   /* data[] follows the header */
G_STATIC_ASSERT (sizeof (ViperTram) <= 96);   /* issue 11: <= 150 B per tram in flight, all told */
G_STATIC_ASSERT (sizeof (BigHeader) % GRAIN == 0);

ViperTramPool *
viper_tram_pool_new (void)
{
  ViperTramPool *pool = g_new0 (ViperTramPool, 1);
  pool->slabs = g_ptr_array_new_with_free_func (g_free);
  return pool;
}

void
viper_tram_pool_free (ViperTramPool *pool)
{
  if (!pool)
    return;
  for (guint i = 0; i < pool->slabs->len; i++)
    UNPOISON (pool->slabs->pdata[i], SLAB_SIZE);
  g_ptr_array_free (pool->slabs, TRUE);
  for (BigHeader *b = pool->big, *next; b; b = next)
    {
      next = b->next;
      g_free (b);
    }
  g_free (pool);
}

/* text: bytes of text storage, NUL included (0 for a canonical line) */
static inline gsize
block_size (guint32 ndata_ints, gsize text)
{
  gsize n = sizeof (ViperTram) + (gsize) ndata_ints * sizeof (gint64) + text;
  return (n + GRAIN - 1) & ~(gsize) (GRAIN - 1);
}

G_NO_INLINE static ViperTram *
alloc_big (ViperTramPool *pool, gsize size)
{
  BigHeader *b = g_malloc (sizeof (BigHeader) + size);
  b->size = size;
  b->prev = NULL;
  b->next = pool->big;
  if (pool->big)
    pool->big->prev = b;
  pool->big = b;
  return (ViperTram *) (b + 1);
}

G_NO_INLINE static void *
carve_from_new_slab (ViperTramPool *pool, gsize size)
{
  char *slab = g_malloc (SLAB_SIZE);
  POISON (slab + size, SLAB_SIZE - size);
  g_ptr_array_add (pool->slabs, slab);
  pool->bump = slab + size;
  pool->bump_end = slab + SLAB_SIZE;
  return slab;
}

/* Header zeroed, body left as it was: for callers that fill the body.  The
 * _canon variant has no room for text (a canonical line's is regenerated). */
ViperTram *viper_tram_pool_alloc_uninit (ViperTramPool *pool, guint32 ndata_ints, guint32 raw_len);
ViperTram *viper_tram_pool_alloc_canon_uninit (ViperTramPool *pool, guint32 ndata_ints);

static ViperTram *
alloc_block (ViperTramPool *pool, gsize size)
{
  gsize cls = size / GRAIN;
  ViperTram *t;

  pool->live++;
  pool->bytes_in_use += size;
  if (G_UNLIKELY (cls > N_CLASSES))
    {
      t = alloc_big (pool, size);
      memset (t, 0, sizeof *t);
      t->size_class = BIG_CLASS;
      return t;
    }

  FreeBlock *fb = pool->free_list[cls];
  if (fb)
    {
      UNPOISON (fb, size);
      pool->free_list[cls] = fb->next;
      t = (ViperTram *) fb;
    }
  else if ((gsize) (pool->bump_end - pool->bump) >= size)
    {
      t = (ViperTram *) pool->bump;
      UNPOISON (t, size);
      pool->bump += size;
    }
  else
    t = carve_from_new_slab (pool, size);

  memset (t, 0, sizeof *t);
  t->size_class = (guint16) cls;
  return t;
}

ViperTram *
viper_tram_pool_alloc_uninit (ViperTramPool *pool, guint32 ndata_ints, guint32 raw_len)
{
  return alloc_block (pool, block_size (ndata_ints, (gsize) raw_len + 1));
}

ViperTram *
viper_tram_pool_alloc_canon_uninit (ViperTramPool *pool, guint32 ndata_ints)
{
  return alloc_block (pool, block_size (ndata_ints, 0));
}

ViperTram *
viper_tram_pool_alloc (ViperTramPool *pool, guint32 ndata_ints, guint32 raw_len)
{
  ViperTram *t = viper_tram_pool_alloc_uninit (pool, ndata_ints, raw_len);
  gsize body = (gsize) ndata_ints * sizeof (gint64) + (gsize) raw_len + 1;
  memset (t + 1, 0, body);
  return t;
}

void
viper_tram_pool_release (ViperTramPool *pool, ViperTram *t)
{
  if (!t)
    return;
  g_return_if_fail (pool->live > 0);
  pool->live--;
  if (G_UNLIKELY (t->size_class == BIG_CLASS))
    {
      BigHeader *b = (BigHeader *) t - 1;
      pool->bytes_in_use -= b->size;
      if (b->prev)
        b->prev->next = b->next;
      else
        pool->big = b->next;
      if (b->next)
        b->next->prev = b->prev;
      g_free (b);
      return;
    }
  guint cls = t->size_class;
  g_return_if_fail (cls >= 1 && cls <= N_CLASSES);
  pool->bytes_in_use -= (gsize) cls * GRAIN;
  FreeBlock *fb = (FreeBlock *) t;
  fb->next = pool->free_list[cls];
  pool->free_list[cls] = fb;
  POISON (fb, (gsize) cls * GRAIN);
}

gsize
viper_tram_pool_bytes_in_use (const ViperTramPool *pool)
{
  return pool->bytes_in_use;
}

gsize
viper_tram_pool_live (const ViperTramPool *pool)
{
  return pool->live;
}

ViperTram *
viper_tram_copy (ViperTramPool *pool, const ViperTram *t)
{
  guint32 nints = t->dtype == VIPER_DTYPE_INT ? t->ndata : 0;
  guint32 text = (t->flags & VIPER_TRAM_F_CANON) ? 0 : t->raw_len;
  ViperTram *c = (t->flags & VIPER_TRAM_F_CANON) ? viper_tram_pool_alloc_canon_uninit (pool, nints)
                                                 : viper_tram_pool_alloc_uninit (pool, nints, text);
  guint16 cls = c->size_class;
  memcpy (c, t, sizeof *t + (gsize) nints * sizeof (gint64) + ((t->flags & VIPER_TRAM_F_CANON) ? 0 : text + 1));
  c->size_class = cls;
  /* The engine's links and states describe the original's place in the run;
   * the copy is a fresh tram with the same content and classification. */
  c->next = NULL;
  c->prim = NULL;
  c->waiter_next = NULL;
  c->slot = 0;
  c->state = VIPER_TRAM_NEW;
  c->waits = 0;
  c->flags &= VIPER_TRAM_F_IGNORED | VIPER_TRAM_F_CANON | VIPER_TRAM_F_WIDE;
  return c;
}

/* ---- printing ------------------------------------------------------------ */

char *
viper_format_double (double v, char *buf)
{
  /* The scanner rejects TIME values that do not fit a double, so only a bug
   * in the arithmetic on times could get here; keep the output parseable. */
  if (G_UNLIKELY (!isfinite (v)))
    {
      g_critical ("viper_format_double: non-finite value");
      v = isnan (v) ? 0.0 : copysign (DBL_MAX, v);
    }
  static const char *const formats[] = { "%.15g", "%.16g" };
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, 32, formats[i], v);
      if (g_ascii_strtod (buf, NULL) == v)
        return buf;
    }
  return g_ascii_formatd (buf, 32, "%.17g", v);
}

static void
print_from_fields (const ViperTram *t, gboolean use_adjusted, GString *out)
{
  char num[32];
  g_string_append_printf (out, "%d %d %s %" G_GINT64_FORMAT " %d %u",
                          t->rec, t->ev, viper_format_double (use_adjusted ? t->adjusted : t->time, num), t->proc,
                          t->process, t->ndata);
  const gint64 *data = viper_tram_data (t);
  if (t->ndata && data)
    {
      g_string_append (out, " 2");
      for (guint32 i = 0; i < t->ndata; i++)
        g_string_append_printf (out, " %" G_GINT64_FORMAT, data[i]);
    }
}

void
viper_tram_print (const ViperTram *t, gboolean use_adjusted, GString *out)
{
  if (t->raw_len == 0 || (t->flags & VIPER_TRAM_F_CANON))
    {
      /* built by code, or read in exactly the form printing gives: regenerate */
      print_from_fields (t, use_adjusted, out);
      return;
    }

  const char *raw = viper_tram_raw (t);
  const char *p = raw, *end = raw + t->raw_len;
  guint field = 0;
  while (TRUE)
    {
      while (p < end && (*p == ' ' || *p == '\t'))
        p++;
      if (p == end)
        break;
      const char *w = p;
      if (t->ndata && (gsize) (p - raw) == t->data_off && *p == '"')
        {
          /* a quoted format's blanks are part of its text: keep them */
          const char *close = memchr (p + 1, '"', (gsize) (end - p - 1));
          p = close ? close + 1 : end;
        }
      while (p < end && *p != ' ' && *p != '\t')
        p++;
      if (field)
        g_string_append_c (out, ' ');
      if (field == 2)
        {
          /* TIME always in its shortest exact form, so that printing is the
           * same whether the text was kept or regenerated */
          char num[32];
          g_string_append (out, viper_format_double (use_adjusted ? t->adjusted : t->time, num));
        }
      else
        g_string_append_len (out, w, p - w);
      field++;
    }
  /* A CR is data inside a line (only one before the '\n' is a line end), so
   * a last field ending in CR was followed by a blank or a second CR when it
   * was read.  Keep one blank after it, or a reader takes the CR for the
   * line end and loses it (and with it, the field). */
  if (out->len && out->str[out->len - 1] == '\r')
    g_string_append_c (out, ' ');
}
