/* test-tram.h - two trams with the same content: every field a reader of
 * the trace gave it (not the engine's links and states), its data, its text
 * and its printed line.  For tests that keep trams another way (the clock
 * keeper's tapes, the sequence lists' packed slots) and compare. */
#pragma once

#include "core/tram.h"

static inline void
test_assert_same_tram (const ViperTram *a, const ViperTram *b)
{
  g_assert_cmpfloat (a->time, ==, b->time);
  g_assert_cmpint (a->proc, ==, b->proc);
  g_assert_cmpint (a->seq, ==, b->seq);
  g_assert_cmpint (a->rec, ==, b->rec);
  g_assert_cmpint (a->ev, ==, b->ev);
  g_assert_cmpint (a->process, ==, b->process);
  g_assert_cmpuint (a->raw_len, ==, b->raw_len);
  g_assert_cmpuint (a->line, ==, b->line);
  g_assert_cmpuint (a->channel, ==, b->channel);
  g_assert_cmpuint (a->ndata, ==, b->ndata);
  g_assert_cmpuint (a->data_off, ==, b->data_off);
  g_assert_cmpuint (a->type, ==, b->type);
  g_assert_cmpint (a->dtype, ==, b->dtype);
  g_assert_cmpuint (a->flags, ==, b->flags);
  if (a->dtype == VIPER_DTYPE_INT && a->ndata)
    g_assert_cmpmem (viper_tram_data (a), a->ndata * sizeof (gint64), viper_tram_data (b), b->ndata * sizeof (gint64));
  g_assert_cmpstr (viper_tram_raw (a), ==, viper_tram_raw (b));
  GString *pa = g_string_new (NULL), *pb = g_string_new (NULL);
  viper_tram_print (a, FALSE, pa);
  viper_tram_print (b, FALSE, pb);
  g_assert_cmpstr (pa->str, ==, pb->str);
  g_string_free (pa, TRUE);
  g_string_free (pb, TRUE);
}
