/* tram.c - the tram pool, and printing trams back as lines.
 *
 * Pool: a tram is one block (header, int64 data, raw text), so its size
 * varies with the line.  Sizes are rounded up to 8 bytes (all a tram needs
 * for alignment), which gives 128 classes up to 1 KiB; a canonical line
 * stores no text at all, not even its NUL.  Each class carves its blocks
 * from its own 64 KiB slabs.  A slab's header (its class, its count of live
 * blocks, a LIFO free list threaded through the first word of its released
 * blocks, and a bump offset for the part never used yet) is not in the slab
 * but in a dense table of headers indexed by slab id, 1,024 to a chunk that
 * never moves: a tram names its slab (pool_slab), so release finds the header
 * in O(1), and on shuffled input, where trams are released in an order
 * unrelated to the one they were allocated in, the headers of all slabs stay
 * in a few pages of cache instead of costing a cache and TLB miss each, one
 * per slab (issue 11).  The class keeps a list of its slabs that have room,
 * most recently released-into first, and alloc takes from the head of that
 * list, also O(1).
 *
 * Memory goes back: when a slab's last live block is released, the slab is
 * returned to the system, except that each class keeps one empty slab as a
 * spare, so alloc and release at a slab boundary do not map and unmap a
 * slab each time.  A burst of pending trams therefore costs its memory only
 * while it waits; once it drains the pool holds at most one slab per class
 * it ever used (128 x 64 KiB at the very most).  A slab that still holds one
 * live tram stays, so a few long-waiting trams scattered over many slabs
 * keep those slabs (the engine releases trams roughly in the order it took
 * them, which keeps this rare).  Slabs are mapped with mmap() on their own
 * so that unmapping really returns the pages: memory from malloc() freed
 * in the middle of the heap stays in the process.  (Transparent huge pages
 * for the slabs were tried for issue 11: fewer TLB misses on a shuffled
 * trace, but the kernel's zeroing and compaction of 2 MiB pages cost more
 * system time than they saved, twice as much on a loaded machine.)  Under
 * AddressSanitizer they come from malloc() instead, so that the sanitizer
 * sees them (leak scanning, use of a slab after it went back).
 *
 * Trams bigger than 1 KiB (long lines) are rare and get their own g_malloc
 * block, freed on release, with a hidden prefix that links them so that
 * viper_tram_pool_free() can free the ones still alive.
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
#include <stdlib.h>
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

#if defined(G_OS_UNIX) && !defined(VIPER_POOL_ASAN)
#define VIPER_POOL_MMAP 1
#include <sys/mman.h>
#endif

#define GRAIN 8
#define N_CLASSES 128                     /* classes 1..128: 8..1024 bytes */
#define SLAB_SIZE VIPER_TRAM_POOL_SLAB_BYTES
#define SPARE_SLABS 1                     /* empty slabs a class keeps */
#define BIG_SLAB G_MAXUINT32              /* pool_slab of a big tram */
/* Slabs fill from their start (only the last slab of a class has pages not
 * used yet), so a slab's pages are mapped in the one call rather than
 * faulted in one by one: 16 faults, a third of the system time of a
 * shuffled replay */
#ifdef MAP_POPULATE
#define SLAB_POPULATE MAP_POPULATE
#else
#define SLAB_POPULATE 0
#endif
#define CHUNK_BITS 10                     /* slab headers per chunk of the table: 1,024 */
#define CHUNK_MASK ((1u << CHUNK_BITS) - 1)

typedef struct _FreeBlock FreeBlock;
struct _FreeBlock {
  FreeBlock *next;
};

/* A slab's header, in the pool's header table (its SLAB_SIZE bytes hold
 * only blocks). */
typedef struct _Slab Slab;
struct _Slab {
  FreeBlock *free;                        /* released blocks, LIFO */
  Slab *prev, *next;                      /* in its class's list of slabs with room */
  char *mem;                              /* its SLAB_SIZE bytes; NULL once returned */
  guint32 bump;                           /* offset of the first byte never handed out */
  guint32 live;                           /* blocks in use */
  guint32 id;                             /* index in the header table */
  guint16 cls;
  guint8 listed;                          /* in its class's list */
  guint8 mapped;                          /* from mmap() (else g_malloc) */
};

typedef struct {
  Slab *room;                             /* slabs with a free block or an unused tail */
  guint32 empty;                          /* slabs with no live block (spares) */
} SizeClass;

typedef struct _BigHeader BigHeader;
struct _BigHeader {
  BigHeader *prev, *next;
  gsize size;
  gsize pad;                              /* keeps the tram 16-byte aligned (malloc's) */
};

#define PAGE_CACHE 16u

struct _ViperTramPool {
  SizeClass cls[N_CLASSES + 1];
  Slab **chunk;                           /* headers by id: chunk[id >> CHUNK_BITS][id & CHUNK_MASK] */
  guint32 n_slab_ids, n_chunks;
  guint32 *free_ids;                      /* ids of returned slabs, to reuse */
  guint32 n_free_ids, free_ids_cap;
  BigHeader *big;
  gsize bytes_in_use;
  gsize reserved, reserved_peak;
  gsize live;
  /* emptied pages of packed trams (seqlist.c), a few kept for the next
   * need: lists take and give pages back as their cuts move */
  gpointer page_cache[PAGE_CACHE];
  guint n_page_cache;
  gsize page_cache_size;    /* their size (the only size asked for) */
};

G_STATIC_ASSERT (sizeof (ViperTram) % sizeof (gint64) == 0);   /* data[] follows the header */
G_STATIC_ASSERT (sizeof (ViperTram) <= 96);   /* issue 11: <= 150 B per tram in flight, all told */
G_STATIC_ASSERT (sizeof (BigHeader) % GRAIN == 0);
G_STATIC_ASSERT (N_CLASSES * GRAIN <= SLAB_SIZE);

static inline Slab *
slab_at (const ViperTramPool *pool, guint32 id)
{
  return &pool->chunk[id >> CHUNK_BITS][id & CHUNK_MASK];
}

ViperTramPool *
viper_tram_pool_new (void)
{
  return g_new0 (ViperTramPool, 1);
}

static char *
slab_memory (guint8 *mapped)
{
#ifdef VIPER_POOL_MMAP
  void *p = mmap (NULL, SLAB_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | SLAB_POPULATE, -1, 0);
  if (G_LIKELY (p != MAP_FAILED))
    {
      *mapped = 1;
      return p;
    }
  /* out of mappings (vm.max_map_count) or of memory: let malloc try */
#endif
  *mapped = 0;
  return g_malloc (SLAB_SIZE);
}

static void
slab_memory_free (Slab *s)
{
  UNPOISON (s->mem, SLAB_SIZE);
#ifdef VIPER_POOL_MMAP
  if (s->mapped)
    munmap (s->mem, SLAB_SIZE);
  else
#endif
    g_free (s->mem);
  s->mem = NULL;
}

void
viper_tram_pool_free (ViperTramPool *pool)
{
  if (!pool)
    return;
  for (guint32 i = 0; i < pool->n_slab_ids; i++)
    if (slab_at (pool, i)->mem)
      slab_memory_free (slab_at (pool, i));
  for (guint32 i = 0; i < pool->n_chunks; i++)
    g_free (pool->chunk[i]);
  g_free (pool->chunk);
  g_free (pool->free_ids);
  for (BigHeader *b = pool->big, *next; b; b = next)
    {
      next = b->next;
      g_free (b);
    }
  for (guint i = 0; i < pool->n_page_cache; i++)
    free (pool->page_cache[i]);
  g_free (pool);
}

/* text: bytes of text storage, NUL included (0 for a canonical line) */
static inline gsize
block_size (guint32 ndata_ints, gsize text)
{
  gsize n = sizeof (ViperTram) + (gsize) ndata_ints * sizeof (gint64) + text;
  return (n + GRAIN - 1) & ~(gsize) (GRAIN - 1);
}

static inline void
reserve (ViperTramPool *pool, gsize n)
{
  pool->reserved += n;
  if (pool->reserved > pool->reserved_peak)
    pool->reserved_peak = pool->reserved;
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
  reserve (pool, sizeof (BigHeader) + size);
  ViperTram *t = (ViperTram *) (b + 1);
  memset (t, 0, sizeof *t);
  t->pool_slab = BIG_SLAB;
  return t;
}

static inline void
room_link (SizeClass *c, Slab *s)
{
  s->prev = NULL;
  s->next = c->room;
  if (c->room)
    c->room->prev = s;
  c->room = s;
  s->listed = 1;
}

static inline void
room_unlink (SizeClass *c, Slab *s)
{
  if (s->prev)
    s->prev->next = s->next;
  else
    c->room = s->next;
  if (s->next)
    s->next->prev = s->prev;
  s->prev = s->next = NULL;
  s->listed = 0;
}

/* A fresh empty slab for class cls, at the head of its list. */
G_NO_INLINE static Slab *
new_slab (ViperTramPool *pool, guint cls)
{
  guint8 mapped;
  char *mem = slab_memory (&mapped);
  guint32 id;
  if (pool->n_free_ids)
    id = pool->free_ids[--pool->n_free_ids];
  else
    {
      if (G_UNLIKELY (pool->n_slab_ids == BIG_SLAB))
        g_error ("tram pool: %u slabs of %u bytes: out of slab ids", BIG_SLAB, SLAB_SIZE);
      if ((pool->n_slab_ids >> CHUNK_BITS) == pool->n_chunks)
        {
          pool->chunk = g_renew (Slab *, pool->chunk, pool->n_chunks + 1);
          pool->chunk[pool->n_chunks++] = g_new0 (Slab, CHUNK_MASK + 1);
        }
      id = pool->n_slab_ids++;
    }
  Slab *s = slab_at (pool, id);
  s->mem = mem;
  s->free = NULL;
  s->bump = 0;
  s->live = 0;
  s->id = id;
  s->cls = (guint16) cls;
  s->mapped = mapped;
  POISON (mem, SLAB_SIZE);
  room_link (&pool->cls[cls], s);
  pool->cls[cls].empty++;
  reserve (pool, SLAB_SIZE);
  return s;
}

/* The last block of s was released and the class has its spare already. */
G_NO_INLINE static void
return_slab (ViperTramPool *pool, Slab *s)
{
  room_unlink (&pool->cls[s->cls], s);
  if (pool->n_free_ids == pool->free_ids_cap)
    {
      pool->free_ids_cap = pool->free_ids_cap ? pool->free_ids_cap * 2 : 64;
      pool->free_ids = g_renew (guint32, pool->free_ids, pool->free_ids_cap);
    }
  pool->free_ids[pool->n_free_ids++] = s->id;
  pool->reserved -= SLAB_SIZE;
  slab_memory_free (s);
}

/* Header zeroed, body left as it was: for callers that fill the body.  The
 * _canon variant has no room for text (a canonical line's is regenerated). */
ViperTram *viper_tram_pool_alloc_uninit (ViperTramPool *pool, guint32 ndata_ints, guint32 raw_len);
ViperTram *viper_tram_pool_alloc_canon_uninit (ViperTramPool *pool, guint32 ndata_ints);

static inline ViperTram *
alloc_block (ViperTramPool *pool, gsize size)
{
  gsize cls = size / GRAIN;

  /* the caller writes the header (alloc_block_zeroed, viper_tram_copy_image) */
  pool->live++;
  pool->bytes_in_use += size;
  if (G_UNLIKELY (cls > N_CLASSES))
    return alloc_big (pool, size);

  SizeClass *c = &pool->cls[cls];
  Slab *s = c->room;
  if (G_UNLIKELY (!s))
    s = new_slab (pool, (guint) cls);
  ViperTram *t;
  FreeBlock *fb = s->free;
  if (fb)
    {
      UNPOISON (fb, size);
      s->free = fb->next;
      /* released long ago, the next free block is cold: fetch it for the
       * next allocation now */
      if (s->free)
        __builtin_prefetch (s->free, 1);
      t = (ViperTram *) fb;
    }
  else
    {
      t = (ViperTram *) (s->mem + s->bump);
      UNPOISON (t, size);
      s->bump += (guint32) size;
    }
  if (s->live++ == 0)
    c->empty--;
  if (!s->free && s->bump + size > SLAB_SIZE)
    room_unlink (c, s);                   /* full */

  t->pool_slab = s->id;
  return t;
}

static inline ViperTram *
alloc_block_zeroed (ViperTramPool *pool, gsize size)
{
  ViperTram *t = alloc_block (pool, size);
  guint32 slab = t->pool_slab;
  memset (t, 0, sizeof *t);
  t->pool_slab = slab;
  return t;
}

ViperTram *
viper_tram_pool_alloc_uninit (ViperTramPool *pool, guint32 ndata_ints, guint32 raw_len)
{
  return alloc_block_zeroed (pool, block_size (ndata_ints, (gsize) raw_len + 1));
}

ViperTram *
viper_tram_pool_alloc_canon_uninit (ViperTramPool *pool, guint32 ndata_ints)
{
  return alloc_block_zeroed (pool, block_size (ndata_ints, 0));
}

gpointer
viper_tram_pool_page_alloc (ViperTramPool *pool, gsize size)
{
  void *mem = NULL;
  if (pool && pool->n_page_cache && pool->page_cache_size == size)
    mem = pool->page_cache[--pool->n_page_cache];   /* counted already */
  else
    {
      if (posix_memalign (&mem, 64, size) != 0)
        g_error ("viper: out of memory for a page of %" G_GSIZE_FORMAT " bytes of waiting trams", size);
      if (pool)
        reserve (pool, size);
    }
  return memset (mem, 0, size);
}

void
viper_tram_pool_page_free (ViperTramPool *pool, gpointer page, gsize size)
{
  if (!page)
    return;
  if (pool && pool->n_page_cache < PAGE_CACHE && (!pool->n_page_cache || pool->page_cache_size == size))
    {
      pool->page_cache_size = size;
      pool->page_cache[pool->n_page_cache++] = page;
      return;
    }
  if (pool)
    pool->reserved -= size;
  free (page);
}

ViperTram *
viper_tram_pool_alloc_raw (ViperTramPool *pool, guint32 ndata_ints)
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
  if (G_UNLIKELY (t->pool_slab == BIG_SLAB))
    {
      pool->live--;
      BigHeader *b = (BigHeader *) t - 1;
      pool->bytes_in_use -= b->size;
      pool->reserved -= sizeof (BigHeader) + b->size;
      if (b->prev)
        b->prev->next = b->next;
      else
        pool->big = b->next;
      if (b->next)
        b->next->prev = b->prev;
      g_free (b);
      return;
    }
  g_return_if_fail (t->pool_slab < pool->n_slab_ids);
  Slab *s = slab_at (pool, t->pool_slab);
  pool->live--;
  gsize size = (gsize) s->cls * GRAIN;
  pool->bytes_in_use -= size;
  FreeBlock *fb = (FreeBlock *) t;
  fb->next = s->free;
  s->free = fb;
  POISON (fb, size);
  SizeClass *c = &pool->cls[s->cls];
  if (!s->listed)
    room_link (c, s);
  if (--s->live == 0)
    {
      if (c->empty >= SPARE_SLABS)
        return_slab (pool, s);
      else
        c->empty++;
    }
}

gsize
viper_tram_pool_bytes_in_use (const ViperTramPool *pool)
{
  return pool->bytes_in_use;
}

gsize
viper_tram_pool_bytes_reserved (const ViperTramPool *pool)
{
  return pool->reserved;
}

gsize
viper_tram_pool_bytes_reserved_peak (const ViperTramPool *pool)
{
  return pool->reserved_peak;
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
  guint32 slab = c->pool_slab;
  memcpy (c, t, sizeof *t + (gsize) nints * sizeof (gint64) + ((t->flags & VIPER_TRAM_F_CANON) ? 0 : text + 1));
  c->pool_slab = slab;
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

ViperTram *
viper_tram_copy_image (ViperTramPool *pool, const ViperTram *image)
{
  /* one block of the image's size, whose header is overwritten whole: no
   * sizes to work out, no fields to reset (issue 11: half the cost of
   * viper_tram_copy for a read-ahead tram) */
  gsize size = image->pool_slab;
  ViperTram *c = alloc_block (pool, size);
  guint32 slab = c->pool_slab;
  memcpy (c, image, size);
  c->pool_slab = slab;
  return c;
}

/* ---- printing ------------------------------------------------------------ */

static const double pow10_exact[] = { 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
                                      1e10, 1e11, 1e12, 1e13, 1e14, 1e15 };

char *
viper_write_fixed (guint64 n, guint decimals, gboolean negative, char *buf)
{
  char digits[24];
  guint len = 0;
  do
    {
      digits[len++] = (char) ('0' + n % 10);
      n /= 10;
    }
  while (n);
  while (len <= decimals)
    digits[len++] = '0';    /* 0.0015: the leading zeros */
  char *p = buf;
  if (negative)
    *p++ = '-';
  while (len > decimals)
    *p++ = digits[--len];
  if (decimals)
    {
      *p++ = '.';
      while (len)
        *p++ = digits[--len];
    }
  *p = '\0';
  return buf;
}

/* Exports and --run-out print a time per record: printf's conversion and
 * the read-back check were a sixth of an export.  Most times are decimals
 * of a few digits (they were read as such), so try those with integer
 * arithmetic first: a decimal n / 10^k with n < 10^15 reads back as v
 * exactly when the division, correctly rounded like strtod, gives v (n and
 * 10^k are exact doubles); with at most 15 significant digits and v in
 * [1e-4, 1e15), %.15g writes the same text (v rounds to that decimal on the
 * 15-digit grid, and %g uses no exponent there).  The smallest such k is
 * the text without trailing zeros. */
static gboolean
format_decimal (double v, char *buf)
{
  double a = fabs (v);
  if (!(a >= 1e-4 && a < 1e15))
    return FALSE;
  for (guint k = 0; k <= 9; k++)
    {
      double n = nearbyint (a * pow10_exact[k]);
      if (n >= 1e15)
        return FALSE;
      if (n / pow10_exact[k] == a)
        {
          viper_write_fixed ((guint64) n, k, v < 0, buf);
          return TRUE;
        }
    }
  return FALSE;
}

/* %.Pg of v for P = 15, 16, 17, the first that reads back, for |v| in
 * [1e-4, 1e15), with exact integer arithmetic (times adjusted by the clock
 * corrections need 16 or 17 digits: printf and the read-back check were
 * most of a Chrome or ParaGraph export's time).  |v| = m / 2^s exactly (m
 * the 53-bit significand); the P-digit decimal of |v| is n / 10^k with
 * n = m * 10^k / 2^s rounded half to even, as printf rounds the exact
 * value.  It reads back as v when it lies within half a unit of the last
 * place of v (a tie goes to the even significand, as strtod rounds), i.e.
 * when 2 |n * 2^s - m * 10^k| < 10^k (4 |..| below a power of two, whose
 * lower neighbour is nearer).  Every product stays below 2^127: m < 2^53,
 * 10^k <= 10^20 < 2^67, n < 10^17 < 2^57, s <= 67.  FALSE outside that
 * range (printf then). */
static gboolean
format_shortest (double v, char *buf)
{
  double a = fabs (v);
  if (!(a >= 1e-4 && a < 1e15))
    return FALSE;
  int e;
  double f = frexp (a, &e);           /* a = f * 2^e, f in [0.5, 1) */
  guint64 m = (guint64) ldexp (f, 53);
  int s = 53 - e;                     /* a = m / 2^s, 4 <= s <= 67 here */
  if (s < 1 || s > 67)
    return FALSE;
  typedef unsigned __int128 U128;
  static const U128 p10[] = {
    1ull, 10ull, 100ull, 1000ull, 10000ull, 100000ull, 1000000ull, 10000000ull, 100000000ull, 1000000000ull,
    10000000000ull, 100000000000ull, 1000000000000ull, 10000000000000ull, 100000000000000ull,
    1000000000000000ull, 10000000000000000ull, 100000000000000000ull, 1000000000000000000ull,
    10000000000000000000ull, (U128) 10000000000000000000ull * 10,
  };
  /* log10 (a) is in [(e - 1) log10 2, e log10 2): a guess at most one low */
  int lg = (int) floor ((e - 1) * 0.30102999566398120);
  for (int p = 15; p <= 17; p++)
    {
      int x = lg;
      U128 n = 0, scale = 0;
      int k = 0;
      for (int tries = 0; tries < 3; tries++)
        {
          k = p - 1 - x;
          if (k < 0 || k > 20)
            return FALSE;
          scale = p10[k];
          U128 num = (U128) m * scale;
          n = num >> s;
          U128 rem = num & (((U128) 1 << s) - 1), half = (U128) 1 << (s - 1);
          if (rem > half || (rem == half && (n & 1)))
            n++;
          if (n >= p10[p])
            x++;                      /* one digit more before the point */
          else if (n < p10[p - 1])
            x--;
          else
            break;
          n = 0;
        }
      if (!n)
        return FALSE;
      U128 back = n << s, exact = (U128) m * scale;
      U128 diff = back > exact ? back - exact : exact - back;
      gboolean below = back < exact;
      U128 twice = diff * (m == ((guint64) 1 << 52) && below ? 4 : 2);
      if (p == 17 || twice < scale || (twice == scale && !(m & 1)))
        {
          /* fixed notation (the exponent is within %g's), zeros dropped */
          while (k > 0 && n % 10 == 0)
            {
              n /= 10;
              k--;
            }
          viper_write_fixed ((guint64) n, (guint) k, v < 0, buf);
          return TRUE;
        }
    }
  return FALSE;
}

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
  if (format_decimal (v, buf) || format_shortest (v, buf))
    return buf;
  static const char *const formats[] = { "%.15g", "%.16g" };
  for (guint i = 0; i < G_N_ELEMENTS (formats); i++)
    {
      g_ascii_formatd (buf, 32, formats[i], v);
      if (g_ascii_strtod (buf, NULL) == v)
        return buf;
    }
  return g_ascii_formatd (buf, 32, "%.17g", v);
}

/* Append v in decimal, after a blank unless first: printf's cost was most
 * of a ParaGraph export's. */
static void
append_int (GString *out, gint64 v, gboolean first)
{
  char buf[24], *p = buf + sizeof buf;
  guint64 u = v < 0 ? 0 - (guint64) v : (guint64) v;
  do
    *--p = (char) ('0' + u % 10);
  while (u /= 10);
  if (v < 0)
    *--p = '-';
  if (!first)
    *--p = ' ';
  g_string_append_len (out, p, buf + sizeof buf - p);
}

static void
print_from_fields (const ViperTram *t, const char *time_text, GString *out)
{
  append_int (out, t->rec, TRUE);
  append_int (out, t->ev, FALSE);
  g_string_append_c (out, ' ');
  g_string_append (out, time_text);
  append_int (out, t->proc, FALSE);
  append_int (out, t->process, FALSE);
  append_int (out, t->ndata, FALSE);
  const gint64 *data = viper_tram_data (t);
  if (t->ndata && data)
    {
      g_string_append (out, " 2");
      for (guint32 i = 0; i < t->ndata; i++)
        append_int (out, data[i], FALSE);
    }
}

void
viper_tram_print (const ViperTram *t, gboolean use_adjusted, GString *out)
{
  char num[32];
  viper_tram_print_time_as (t, viper_format_double (use_adjusted ? t->adjusted : t->time, num), out);
}

void
viper_tram_print_time_as (const ViperTram *t, const char *time_text, GString *out)
{
  if (t->raw_len == 0 || (t->flags & VIPER_TRAM_F_CANON))
    {
      /* built by code, or read in exactly the form printing gives: regenerate */
      print_from_fields (t, time_text, out);
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
        /* TIME always in its shortest exact form, so that printing is the
         * same whether the text was kept or regenerated */
        g_string_append (out, time_text);
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
