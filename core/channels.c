/* channels.c - ViperChannels: the FIFO channels trams arrive on, and the
 * implicit sequence numbers they imply.
 *
 * A channel is one file or one socket connection.  Its id is its index in a
 * growing array of names (ids are dense, from 0, never reused), so that a tram
 * needs only a 32-bit id and diagnostics can still say where it came from.
 *
 * Native PICL traces carry no sequence numbers; then a PROC's trams are
 * numbered in arrival order on their channel (spec picl.md section 2), which
 * is sound because each channel is FIFO.  Global records (PROC -1) are the
 * exception: one counter over all channels.  The counters are kept in one hash
 * table keyed by (channel, proc).  next_seq() is called once per tram on that
 * path, so the entry of the last (channel, proc) is cached: consecutive trams
 * mostly come from the same module on the same channel, and the cache spares
 * the hash lookup.  Entries are allocated once per pair and only freed by
 * reset_seq(), so the cached pointer stays valid until then.
 */
#include "core/source.h"

typedef struct {
  guint32 channel;
  gint64 proc;
  gint64 last;              /* last number handed out; 0 = none yet */
} SeqEntry;

#define DIRECT_PROCS 4096   /* procs -1 .. 4094 of channel 0..DIRECT_CHANNELS-1 use a flat array */
#define DIRECT_CHANNELS 64

struct _ViperChannels {
  GPtrArray *names;         /* char *, index = channel id */
  GHashTable *seq;          /* SeqEntry * (key and value) */
  SeqEntry *cached;         /* entry of the previous next_seq() call */
  gint64 *direct[DIRECT_CHANNELS];  /* common case: small channel and proc ids, no hashing */
};

static guint
seq_hash (gconstpointer p)
{
  const SeqEntry *e = p;
  guint64 x = (guint64) e->proc * G_GUINT64_CONSTANT (0x9e3779b97f4a7c15) ^ e->channel;
  return (guint) (x ^ (x >> 32));
}

static gboolean
seq_equal (gconstpointer a, gconstpointer b)
{
  const SeqEntry *x = a, *y = b;
  return x->channel == y->channel && x->proc == y->proc;
}

ViperChannels *
viper_channels_new (void)
{
  ViperChannels *c = g_new0 (ViperChannels, 1);
  c->names = g_ptr_array_new_with_free_func (g_free);
  c->seq = g_hash_table_new_full (seq_hash, seq_equal, g_free, NULL);
  return c;
}

void
viper_channels_free (ViperChannels *c)
{
  if (c == NULL)
    return;
  g_ptr_array_unref (c->names);
  g_hash_table_unref (c->seq);
  for (guint i = 0; i < DIRECT_CHANNELS; i++)
    g_free (c->direct[i]);
  g_free (c);
}

guint32
viper_channels_add (ViperChannels *c, const char *name)
{
  g_return_val_if_fail (c != NULL, 0);
  g_ptr_array_add (c->names, g_strdup (name ? name : "?"));
  return c->names->len - 1;
}

const char *
viper_channels_name (const ViperChannels *c, guint32 id)
{
  if (c == NULL || id >= c->names->len)
    return NULL;
  return g_ptr_array_index (c->names, id);
}

guint32
viper_channels_count (const ViperChannels *c)
{
  return c ? c->names->len : 0;
}

gint64
viper_channels_next_seq (ViperChannels *c, guint32 channel, gint64 proc)
{
  /* Global records (PROC -1: the program manager, subset definitions) may
   * come on every channel - each MPI rank's trace carries its own copy of a
   * subset definition - so they are numbered in arrival order over all
   * channels; numbers per channel would collide. */
  if (proc == -1)
    channel = 0;
  if (channel < DIRECT_CHANNELS && proc >= -1 && proc < DIRECT_PROCS - 1)
    {
      if (!c->direct[channel])
        c->direct[channel] = g_new0 (gint64, DIRECT_PROCS);
      return ++c->direct[channel][proc + 1];
    }
  SeqEntry key = { channel, proc, 0 };
  SeqEntry *e = c->cached;

  if (e == NULL || e->channel != channel || e->proc != proc)
    {
      e = g_hash_table_lookup (c->seq, &key);
      if (e == NULL)
        {
          e = g_new (SeqEntry, 1);
          *e = key;
          g_hash_table_add (c->seq, e);
        }
      c->cached = e;
    }
  return ++e->last;
}

void
viper_channels_reset_seq (ViperChannels *c)
{
  c->cached = NULL;
  g_hash_table_remove_all (c->seq);
  for (guint i = 0; i < DIRECT_CHANNELS; i++)
    g_clear_pointer (&c->direct[i], g_free);
}
