/* viper-lights-agent.c - the cluster lights collector (docs/collector-lights.md).
 *
 * One agent runs on each node.  Every interval it samples
 *  - the node's CPU busy share: /proc/stat's first line (busy = all but
 *    idle and iowait), or, when told (--cgroup), a cgroup's CPU accounting
 *    (cpuacct.usage in ns, or cpu.stat usage_usec) against the wall clock;
 *  - the bytes the node's TCP connections had acknowledged by their peers:
 *    the kernel's socket diagnostics (netlink NETLINK_SOCK_DIAG,
 *    INET_DIAG_INFO's tcp_info.tcpi_bytes_acked per connection, both
 *    address families), as a difference per connection since the last
 *    sample, summed per peer address and mapped to node ids through a hosts
 *    file.  The agents' own connections are left out.  Where socket
 *    diagnostics are not available (or --interfaces is given), the
 *    transmitted bytes of the interfaces named by --iface IFACE:NODE
 *    (/proc/net/dev) stand for the traffic to that node;
 * and writes them as trams of the lights paradigm (docs/paradigm-lights.md)
 * on its own sequence numbers, time stamped with the node's own clock.
 *
 * Agents form a tree, binary by default (Lilith's): an agent listens for
 * children (--listen), forwards their lines whole to its upstream - Viper
 * or its parent (--to) - and remembers which nodes each child's lines came
 * from.  When a child's connection ends, that subtree is reported lost in
 * one Lost tram.  An upstream that cannot be reached is said so on standard
 * error (its address and the reason, once per reason) and retried every
 * interval while lines wait in a bounded buffer; nothing is dropped (a gap
 * would stall the replay), so a full buffer ends the agent with a message,
 * and lines still undelivered at the end are counted and exit 1.
 *
 * Plain C and POSIX, no GLib: the agent runs beside the observed system and
 * must cost little (its CPU share at 500 ms is measured by the benchmark).
 */
#include "lights-agent.h"

AgentState A;

static volatile sig_atomic_t stop_flag;

static void
on_signal (int sig)
{
  (void) sig;
  stop_flag = 1;
}

void
die (const char *fmt, ...)
{
  va_list ap;
  va_start (ap, fmt);
  fprintf (stderr, "viper-lights-agent: ");
  vfprintf (stderr, fmt, ap);
  fprintf (stderr, "\n");
  va_end (ap);
  exit (1);
}

static double
now_real (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_REALTIME, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

double
now_mono (void)
{
  struct timespec ts;
  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* ---- the upstream ------------------------------------------------------------ */

static void
up_append (const char *s, size_t n)
{
  if (A.up_len + n > UPSTREAM_LIMIT)
    die ("%s: %zu bytes wait for the upstream, the bound is %u: giving up (trams cannot be dropped)",
         A.to ? A.to : "upstream", A.up_len + n, UPSTREAM_LIMIT);
  if (A.up_len + n > A.up_cap)
    {
      size_t cap = A.up_cap ? A.up_cap : 65536;
      while (cap < A.up_len + n)
        cap *= 2;
      A.up_buf = realloc (A.up_buf, cap);
      if (!A.up_buf)
        die ("out of memory");
      A.up_cap = cap;
    }
  memcpy (A.up_buf + A.up_len, s, n);
  A.up_len += n;
}

/* The upstream cannot be reached or went away: say so once per reason (the
 * lines wait and are retried every interval), and keep the reason for the
 * final word should they never be delivered. */
static void
up_unreachable (const char *why)
{
  if (strcmp (why, A.up_err) != 0)
    fprintf (stderr, "viper-lights-agent: %s: %s; retrying every %d ms, the lines wait meanwhile\n", A.to,
             why, A.interval_ms);
  snprintf (A.up_err, sizeof A.up_err, "%s", why);
}

static void
up_lost (const char *why)
{
  close (A.up_fd);
  A.up_fd = -1;
  /* the line the old connection took in part is sent again whole on the
   * next one: its tail alone would be a bad line there, and a gap */
  A.up_sent = 0;
  up_unreachable (why);
}

static void
up_flush (void)
{
  while (A.up_fd >= 0 && A.up_sent < A.up_len)
    {
      ssize_t k = write (A.up_fd, A.up_buf + A.up_sent, A.up_len - A.up_sent);
      if (k < 0)
        {
          if (errno == EAGAIN || errno == EINTR)
            break;
          if (A.to_file)
            die ("%s: %s", A.out_path, strerror (errno));
          up_lost (strerror (errno));
          return;
        }
      A.up_sent += (size_t) k;
    }
  /* forget the lines written whole */
  const char *nl = A.up_sent ? memrchr (A.up_buf, '\n', A.up_sent) : NULL;
  if (nl)
    {
      size_t done = (size_t) (nl + 1 - A.up_buf);
      memmove (A.up_buf, A.up_buf + done, A.up_len - done);
      A.up_len -= done;
      A.up_sent -= done;
    }
}

/* "tcp:HOST:PORT", "HOST:PORT" or "PORT" (host 127.0.0.1). */
static int
split_addr (const char *spec, char *host, size_t hlen, char *port, size_t plen)
{
  if (strncmp (spec, "tcp:", 4) == 0)
    spec += 4;
  const char *colon = strrchr (spec, ':');
  if (colon)
    {
      size_t n = (size_t) (colon - spec);
      if (n >= hlen)
        return -1;
      memcpy (host, spec, n);
      host[n] = 0;
      snprintf (port, plen, "%s", colon + 1);
    }
  else
    {
      snprintf (host, hlen, "127.0.0.1");
      snprintf (port, plen, "%s", spec);
    }
  return *port ? 0 : -1;
}

/* --to: "tcp:HOST:PORT" or "tcp:PORT", PORT 1 to 65535 in digits.  Anything
 * else is refused at start-up (a usage error), not retried for ever. */
static int
check_to (const char *spec)
{
  char host[256], port[32];
  if (strncmp (spec, "tcp:", 4) != 0 || split_addr (spec, host, sizeof host, port, sizeof port) < 0)
    return -1;
  if (!*host || strlen (port) > 5 || strspn (port, "0123456789") != strlen (port) || atoi (port) < 1
      || atoi (port) > 65535)
    return -1;
  return 0;
}

/* Connect, waiting at most an interval (2 s at most): an upstream that does
 * not answer must not stall the sampling and the children for minutes. */
static int
connect_bounded (int fd, const struct sockaddr *addr, socklen_t len)
{
  if (connect (fd, addr, len) == 0)
    return 0;
  if (errno != EINPROGRESS)
    return -1;
  struct pollfd p = { fd, POLLOUT, 0 };
  int r = poll (&p, 1, A.interval_ms < 2000 ? A.interval_ms : 2000);
  if (r == 0)
    errno = ETIMEDOUT;
  if (r <= 0)
    return -1;
  int err = 0;
  socklen_t el = sizeof err;
  if (getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
    return -1;
  errno = err;
  return err ? -1 : 0;
}

static void
up_connect (void)
{
  if (A.up_fd >= 0 || A.to_file)
    return;
  char host[256], port[32];
  if (split_addr (A.to, host, sizeof host, port, sizeof port) < 0)
    die ("%s: expected tcp:HOST:PORT", A.to);
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *res = NULL;
  int gai = getaddrinfo (host, port, &hints, &res);
  if (gai != 0)
    {
      up_unreachable (gai == EAI_SYSTEM ? strerror (errno) : gai_strerror (gai));
      return;
    }
  int err = 0;
  for (struct addrinfo *a = res; a && A.up_fd < 0; a = a->ai_next)
    {
      int fd = socket (a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
      if (fd < 0)
        {
          err = errno;
          continue;
        }
      if (connect_bounded (fd, a->ai_addr, a->ai_addrlen) == 0)
        {
          A.up_fd = fd;
          A.up_port = atoi (port);
        }
      else
        {
          err = errno;
          close (fd);
        }
    }
  freeaddrinfo (res);
  if (A.up_fd < 0)
    {
      if (err != EINTR)   /* a signal: stopping, the final flush retries */
        up_unreachable (strerror (err));
    }
  else if (A.up_err[0])
    {
      if (A.up_len)
        fprintf (stderr, "viper-lights-agent: %s: connected again; %zu bytes that waited go now\n", A.to, A.up_len);
      else
        fprintf (stderr, "viper-lights-agent: %s: connected again\n", A.to);
      A.up_err[0] = 0;
    }
}

/* ---- trams ---------------------------------------------------------------------- */

/* One tram of this node: REC 4, EV, SEQ then the words of fmt. */
void
tram (int ev, const char *fmt, ...)
{
  static char *line;
  static size_t cap;
  va_list ap;
  va_start (ap, fmt);
  char *rest = NULL;
  if (vasprintf (&rest, fmt, ap) < 0)
    die ("out of memory");
  va_end (ap);
  int n = 1;
  for (const char *p = rest; *p; p++)
    n += *p == ' ';
  if (*rest)
    n++;
  size_t need = strlen (rest) + 128;
  if (need > cap)
    {
      cap = need * 2;
      line = realloc (line, cap);
      if (!line)
        die ("out of memory");
    }
  int k = snprintf (line, cap, "4 %d %.6f %lld 0 %d 2 %lld%s%s\n", ev, now_real (), A.node, n, ++A.seq,
                    *rest ? " " : "", rest);
  free (rest);
  up_append (line, (size_t) k);
}

/* A message: one Unicode code point per field (ASCII and UTF-8 input). */
void
message (const char *fmt, ...)
{
  char text[512];
  va_list ap;
  va_start (ap, fmt);
  vsnprintf (text, sizeof text, fmt, ap);
  va_end (ap);
  if (A.verbose)
    fprintf (stderr, "viper-lights-agent: node %lld: %s\n", A.node, text);
  char words[512 * 8];
  size_t w = 0;
  const unsigned char *p = (const unsigned char *) text;
  while (*p && w + 12 < sizeof words)
    {
      unsigned cp = *p++;
      int more = cp >= 0xf0 ? 3 : cp >= 0xe0 ? 2 : cp >= 0xc0 ? 1 : 0;
      if (more)
        cp &= 0x3fu >> more;
      for (; more && (*p & 0xc0) == 0x80; more--)
        cp = (cp << 6) | (*p++ & 0x3f);
      if (more || cp == 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        cp = '?';
      w += (size_t) snprintf (words + w, sizeof words - w, "%s%u", w ? " " : "", cp);
    }
  if (w)
    tram (44, "%s", words);
}

/* ---- children ------------------------------------------------------------------- */

static void
child_note_node (Child *c, long long node)
{
  for (size_t i = 0; i < c->n_nodes; i++)
    if (c->nodes[i] == node)
      return;
  if (c->n_nodes == c->cap_nodes)
    {
      c->cap_nodes = c->cap_nodes ? c->cap_nodes * 2 : 8;
      c->nodes = realloc (c->nodes, c->cap_nodes * sizeof *c->nodes);
      if (!c->nodes)
        die ("out of memory");
    }
  c->nodes[c->n_nodes++] = node;
}

static void
child_lost (int i, const char *why)
{
  Child *c = &A.children[i];
  if (c->n_nodes)
    {
      char *words = malloc (c->n_nodes * 24 + 1);
      if (!words)
        die ("out of memory");
      size_t w = 0;
      for (size_t k = 0; k < c->n_nodes; k++)
        w += (size_t) sprintf (words + w, "%s%lld", k ? " " : "", c->nodes[k]);
      tram (43, "%s", words);
      free (words);
    }
  message ("child %s lost (%s), %zu node%s", c->name, why, c->n_nodes, c->n_nodes == 1 ? "" : "s");
  close (c->fd);
  free (c->buf);
  free (c->nodes);
  A.children[i] = A.children[--A.n_children];
}

/* Forward the child's complete lines, noting the PROC of each. */
static void
child_read (int i)
{
  Child *c = &A.children[i];
  if (c->cap - c->len < 65536)
    {
      c->cap = c->cap ? c->cap * 2 : 131072;
      c->buf = realloc (c->buf, c->cap);
      if (!c->buf)
        die ("out of memory");
    }
  ssize_t k = read (c->fd, c->buf + c->len, c->cap - c->len);
  if (k == 0 && c->ending)
    {
      /* it said goodbye: its nodes stop reporting (a viewer shows them
       * stale), none is lost */
      message ("child %s ended, %zu node%s", c->name, c->n_nodes, c->n_nodes == 1 ? "" : "s");
      close (c->fd);
      free (c->buf);
      free (c->nodes);
      A.children[i] = A.children[--A.n_children];
      return;
    }
  if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
    {
      child_lost (i, k == 0 ? "connection closed" : strerror (errno));
      return;
    }
  if (k < 0)
    return;
  c->len += (size_t) k;
  size_t start = 0;
  for (size_t p = 0; p < c->len; p++)
    {
      if (c->buf[p] != '\n')
        continue;
      long long rec, ev, proc;
      double t;
      char tmp[128];
      size_t n = p - start < sizeof tmp - 1 ? p - start : sizeof tmp - 1;
      memcpy (tmp, c->buf + start, n);
      tmp[n] = 0;
      if (p + 1 - start == sizeof AGENT_BYE - 1 && memcmp (c->buf + start, AGENT_BYE, sizeof AGENT_BYE - 1) == 0)
        {
          c->ending = 1;      /* its own, not forwarded: the parent has not ended */
          start = p + 1;
          continue;
        }
      c->ending = 0;          /* lines after it: not the end after all */
      if (sscanf (tmp, "%lld %lld %lf %lld", &rec, &ev, &t, &proc) == 4 && proc >= 0)
        child_note_node (c, proc);
      up_append (c->buf + start, p + 1 - start);
      start = p + 1;
    }
  memmove (c->buf, c->buf + start, c->len - start);
  c->len -= start;
  if (c->len > CHILD_LINE_MAX)
    child_lost (i, "line too long");
}

static void
accept_child (void)
{
  struct sockaddr_storage ss;
  socklen_t sl = sizeof ss;
  int fd = accept4 (A.listen_fd, (struct sockaddr *) &ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
  if (fd < 0)
    return;
  char host[64] = "?", port[16] = "?";
  getnameinfo ((struct sockaddr *) &ss, sl, host, sizeof host, port, sizeof port, NI_NUMERICHOST | NI_NUMERICSERV);
  if (A.n_children >= A.max_children)
    {
      message ("refused a child from %s: already %d (--children)", host, A.n_children);
      close (fd);
      return;
    }
  Child *c = &A.children[A.n_children++];
  memset (c, 0, sizeof *c);
  c->fd = fd;
  snprintf (c->name, sizeof c->name, "%s:%s", host, port);
  message ("child %s connected", c->name);
}

static void
open_listen (void)
{
  char host[256], port[32];
  if (split_addr (A.listen, host, sizeof host, port, sizeof port) < 0)
    die ("--listen %s: expected [HOST:]PORT", A.listen);
  if (!strchr (A.listen, ':'))
    snprintf (host, sizeof host, "0.0.0.0");
  struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE }, *res = NULL;
  if (getaddrinfo (host, port, &hints, &res) != 0 || !res)
    die ("--listen %s: cannot resolve", A.listen);
  int fd = socket (res->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (fd < 0 || bind (fd, res->ai_addr, res->ai_addrlen) < 0 || listen (fd, 16) < 0)
    die ("--listen %s: %s", A.listen, strerror (errno));
  freeaddrinfo (res);
  A.listen_fd = fd;
  A.listen_port = atoi (port);
}

/* ---- options -------------------------------------------------------------------- */

static int
hosts_blank (char c)
{
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* The hosts file: lines "ADDRESS NODE", '#' to the end of a line a comment.
 * A bad line stops the agent with FILE:LINE:COLUMN: reason, the column
 * counted as Viper's readers count it (docs/formats.md: bytes + 1, a tab is
 * one): the word at fault, or just after the line's last byte before its
 * comment (not counting a \r\n end) when the node is missing. */
static void
load_hosts (void)
{
  FILE *f = fopen (A.hosts_path, "r");
  if (!f)
    die ("%s: %s", A.hosts_path, strerror (errno));
  char *line = NULL;
  size_t cap = 0;
  ssize_t got;
  unsigned lineno = 0;
  while ((got = getline (&line, &cap, f)) >= 0)
    {
      lineno++;
      size_t len = (size_t) got;
      if (len && line[len - 1] == '\n')
        {
          len--;
          if (len && line[len - 1] == '\r')
            len--;
        }
      char *hash = memchr (line, '#', len);
      if (hash)
        len = (size_t) (hash - line);
      /* the first three words and where they start */
      size_t at[3] = { 0 }, wlen[3] = { 0 };
      int n = 0;
      for (size_t p = 0; p < len && n < 3;)
        {
          while (p < len && hosts_blank (line[p]))
            p++;
          if (p >= len)
            break;
          at[n] = p;
          while (p < len && !hosts_blank (line[p]))
            p++;
          wlen[n] = p - at[n];
          n++;
        }
      if (n == 0)
        continue;
      if (n < 2)
        die ("%s:%u:%zu: expected ADDRESS NODE", A.hosts_path, lineno, len + 1);
      if (n > 2)
        die ("%s:%u:%zu: expected ADDRESS NODE", A.hosts_path, lineno, at[2] + 1);
      char word[256];
      long long node = -1;
      if (wlen[1] < sizeof word)
        {
          memcpy (word, line + at[1], wlen[1]);
          word[wlen[1]] = 0;
          char *e = NULL;
          errno = 0;
          node = strtoll (word, &e, 10);
          if (*e || errno || e == word)
            node = -1;
        }
      if (node < 0)
        die ("%s:%u:%zu: expected ADDRESS NODE", A.hosts_path, lineno, at[1] + 1);
      HostEntry h = { .node = node };
      int ok = wlen[0] < sizeof word;
      if (ok)
        {
          memcpy (word, line + at[0], wlen[0]);
          word[wlen[0]] = 0;
          if (inet_pton (AF_INET, word, h.addr) == 1)
            h.family = AF_INET;
          else if (inet_pton (AF_INET6, word, h.addr) == 1)
            h.family = AF_INET6;
          else
            ok = 0;
        }
      if (!ok)
        die ("%s:%u:%zu: '%.*s' is not an IPv4 or IPv6 address", A.hosts_path, lineno, at[0] + 1, (int) wlen[0],
             line + at[0]);
      A.hosts = realloc (A.hosts, (A.n_hosts + 1) * sizeof *A.hosts);
      if (!A.hosts)
        die ("out of memory");
      A.hosts[A.n_hosts++] = h;
    }
  free (line);
  fclose (f);
}

static void
usage (FILE *out)
{
  fprintf (out,
           "Usage: viper-lights-agent --node=ID (--to=tcp:HOST:PORT | --out=FILE) [OPTION...]\n"
           "Samples this node's CPU load and its TCP traffic to each peer every interval and sends\n"
           "them as lights trams to Viper or to a parent agent; forwards its children's trams.\n"
           "\n"
           "  -n, --node=ID          this node's id (an integer >= 0)\n"
           "  -t, --to=tcp:HOST:PORT Viper (viper --listen) or the parent agent's --listen address\n"
           "  -o, --out=FILE         write the trams to FILE instead ('-' = standard output)\n"
           "  -p, --parent-node=ID   the parent's node id, said in the Joined tram (default -1: Viper)\n"
           "  -l, --listen=[HOST:]PORT accept child agents here\n"
           "  -c, --children=N       at most N children (default 2: a binary tree; at most %d)\n"
           "  -i, --interval=MS      sampling interval in milliseconds (default 500)\n"
           "  -H, --hosts=FILE       peer addresses to node ids: lines 'ADDRESS NODE'\n"
           "  -g, --cgroup=DIR       load from this cgroup's CPU accounting (cpuacct.usage or\n"
           "                         cpu.stat usage_usec) instead of /proc/stat\n"
           "      --cpus=N           the cgroup's load is usage / (N x wall time) (default 1)\n"
           "      --iface=IFACE:NODE the transmitted bytes of IFACE are traffic to NODE when socket\n"
           "                         diagnostics are unavailable (repeatable)\n"
           "      --interfaces       use the --iface counters even when socket diagnostics work\n"
           "      --count=N          stop after N samples (default: until SIGTERM or SIGINT)\n"
           "  -v, --verbose          print the messages sent, and each sample, on standard error\n"
           "  -h, --help             print this help\n"
           "  -V, --version          print the version\n"
           "\n"
           "Exit status: 0 stopped by a signal or --count, every line delivered; 1 an error, or lines\n"
           "the upstream never took (message on standard error); 2 a usage error.\n"
           "See viper-lights-agent(1) and docs/collector-lights.md.\n",
           MAX_CHILDREN_HARD);
}

static long long
num (const char *opt, const char *s, long long lo, long long hi)
{
  char *end;
  errno = 0;
  long long v = strtoll (s, &end, 10);
  if (errno || *end || end == s || v < lo || v > hi)
    {
      fprintf (stderr, "viper-lights-agent: --%s=%s: expected an integer %lld..%lld\n", opt, s, lo, hi);
      exit (2);
    }
  return v;
}

int
main (int argc, char **argv)
{
  A.node = -1;
  A.parent_node = -1;
  A.interval_ms = 500;
  A.max_children = 2;
  A.cpus = 1;
  A.up_fd = -1;
  A.listen_fd = -1;
  A.diag_ok = 1;
  static const struct option opts[] = {
    { "node", required_argument, 0, 'n' },   { "to", required_argument, 0, 't' },
    { "out", required_argument, 0, 'o' },    { "parent-node", required_argument, 0, 'p' },
    { "listen", required_argument, 0, 'l' }, { "children", required_argument, 0, 'c' },
    { "interval", required_argument, 0, 'i' }, { "hosts", required_argument, 0, 'H' },
    { "cgroup", required_argument, 0, 'g' }, { "cpus", required_argument, 0, 1 },
    { "iface", required_argument, 0, 2 },    { "interfaces", no_argument, 0, 3 },
    { "count", required_argument, 0, 4 },    { "verbose", no_argument, 0, 'v' },
    { "help", no_argument, 0, 'h' },         { "version", no_argument, 0, 'V' },
    { 0, 0, 0, 0 },
  };
  int ch;
  /* getopt's own messages would name argv[0] (a build path): say it here, in one line */
  const char *prog = strrchr (argv[0], '/') ? strrchr (argv[0], '/') + 1 : argv[0];
  opterr = 0;
  while ((ch = getopt_long (argc, argv, ":n:t:o:p:l:c:i:H:g:vhV", opts, NULL)) != -1)
    switch (ch)
      {
      case 'n': A.node = num ("node", optarg, 0, INT64_MAX); break;
      case 't': A.to = optarg; break;
      case 'o': A.out_path = optarg; break;
      case 'p': A.parent_node = num ("parent-node", optarg, -1, INT64_MAX); break;
      case 'l': A.listen = optarg; break;
      case 'c': A.max_children = (int) num ("children", optarg, 0, MAX_CHILDREN_HARD); break;
      case 'i': A.interval_ms = (int) num ("interval", optarg, 10, 3600000); break;
      case 'H': A.hosts_path = optarg; break;
      case 'g': A.cgroup = optarg; break;
      case 1: A.cpus = (int) num ("cpus", optarg, 1, 65536); break;
      case 2:
        {
          char *colon = strrchr (optarg, ':');
          if (!colon)
            {
              fprintf (stderr, "viper-lights-agent: --iface=%s: expected IFACE:NODE\n", optarg);
              return 2;
            }
          *colon = 0;
          A.ifaces = realloc (A.ifaces, (A.n_ifaces + 1) * sizeof *A.ifaces);
          A.ifaces[A.n_ifaces++] = (IfaceMap) { optarg, num ("iface", colon + 1, 0, INT64_MAX), 0, 0 };
          break;
        }
      case 3: A.interfaces_only = 1; break;
      case 4: A.count = (int) num ("count", optarg, 1, INT32_MAX); break;
      case 'v': A.verbose = 1; break;
      case 'h': usage (stdout); return 0;
      case 'V': printf ("viper-lights-agent 0.1.0\n"); return 0;
      case ':':
        if (strncmp (argv[optind - 1], "--", 2) != 0)
          fprintf (stderr, "%s: option requires an argument -- '%c'\n", prog, optopt);
        else
          fprintf (stderr, "%s: option '%s' requires an argument\n", prog, argv[optind - 1]);
        fprintf (stderr, "Try '%s --help'.\n", prog);
        return 2;
      default:
        {
          /* --verbose=1: getopt refuses it, but names it by its short
           * letter (or none): said as the value it is */
          const char *arg = optind > 1 ? argv[optind - 1] : "";
          const char *eq = strncmp (arg, "--", 2) == 0 ? strchr (arg, '=') : NULL;
          for (const struct option *o = opts; eq && o->name; o++)
            if (o->has_arg == no_argument && strlen (o->name) == (size_t) (eq - arg - 2)
                && strncmp (o->name, arg + 2, (size_t) (eq - arg - 2)) == 0)
              {
                fprintf (stderr, "%s: --%s takes no value\nTry '%s --help'.\n", prog, o->name, prog);
                return 2;
              }
        }
        if (optopt)
          fprintf (stderr, "%s: invalid option -- '%c'\n", prog, optopt);
        else
          fprintf (stderr, "%s: unrecognized option '%s'\n", prog, argv[optind - 1]);
        fprintf (stderr, "Try '%s --help'.\n", prog);
        return 2;
      }
  if (optind < argc || A.node < 0 || (!A.to == !A.out_path))
    {
      fprintf (stderr, "viper-lights-agent: give --node and one of --to or --out\n");
      usage (stderr);
      return 2;
    }
  if (A.to && check_to (A.to) < 0)
    {
      fprintf (stderr, "viper-lights-agent: --to=%s: expected tcp:HOST:PORT (PORT 1 to 65535)\n", A.to);
      return 2;
    }
  signal (SIGPIPE, SIG_IGN);
  struct sigaction sa = { .sa_handler = on_signal };
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  if (A.hosts_path)
    load_hosts ();
  if (A.out_path)
    {
      A.to_file = 1;
      A.up_fd = strcmp (A.out_path, "-") == 0 ? 1 : open (A.out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
      if (A.up_fd < 0)
        die ("%s: %s", A.out_path, strerror (errno));
    }
  if (A.listen)
    open_listen ();
  A.conns = calloc (MAX_CONNS, sizeof *A.conns);
  if (!A.conns)
    die ("out of memory");
  up_connect ();
  tram (42, "%lld", A.parent_node);
  message ("agent of node %lld up, interval %d ms, load from %s", A.node, A.interval_ms,
           A.cgroup ? "a cgroup" : "/proc/stat");
  agent_sample (1);
  if (A.verbose)
    fprintf (stderr, "viper-lights-agent: node %lld: sample 0 (the baseline)\n", A.node);
  double next = now_mono () + A.interval_ms / 1000.0;
  int samples = 0;
  while (!stop_flag)
    {
      struct pollfd pf[MAX_CHILDREN_HARD + 2];
      int np = 0;
      if (A.listen_fd >= 0)
        pf[np++] = (struct pollfd) { A.listen_fd, POLLIN, 0 };
      int up_slot = -1;
      if (A.up_fd >= 0 && !A.to_file)
        {
          up_slot = np;
          pf[np++] = (struct pollfd) { A.up_fd, (short) (POLLIN | (A.up_len ? POLLOUT : 0)), 0 };
        }
      int child0 = np;
      for (int i = 0; i < A.n_children; i++)
        pf[np++] = (struct pollfd) { A.children[i].fd, POLLIN, 0 };
      double wait = next - now_mono ();
      int ms = wait > 0 ? (int) (wait * 1000) + 1 : 0;
      int r = poll (pf, (nfds_t) np, ms);
      if (r < 0 && errno != EINTR)
        die ("poll: %s", strerror (errno));
      if (r > 0)
        {
          if (A.listen_fd >= 0 && (pf[0].revents & POLLIN))
            accept_child ();
          if (up_slot >= 0 && (pf[up_slot].revents & (POLLIN | POLLHUP | POLLERR)))
            {
              char junk[256];
              ssize_t k = read (A.up_fd, junk, sizeof junk);
              if (k == 0 || (k < 0 && errno != EAGAIN && errno != EINTR))
                {
                  up_lost (k == 0 ? "connection closed by the upstream" : strerror (errno));
                }
            }
          /* children from the last: a lost one is replaced by the last */
          for (int i = np - 1; i >= child0; i--)
            if (pf[i].revents & (POLLIN | POLLHUP | POLLERR))
              child_read (i - child0);
        }
      if (now_mono () >= next)
        {
          up_connect ();
          agent_sample (0);
          samples++;
          if (A.verbose)
            fprintf (stderr, "viper-lights-agent: node %lld: sample %d\n", A.node, samples);
          next += A.interval_ms / 1000.0;
          if (next < now_mono ())
            next = now_mono () + A.interval_ms / 1000.0;
          if (A.count && samples >= A.count)
            stop_flag = 1;
        }
      up_flush ();
    }
  /* an end on purpose, said upstream: a parent agent takes it, a viewer
   * skips it as the comment it is (not written to a file) */
  if (!A.to_file)
    up_append (AGENT_BYE, sizeof AGENT_BYE - 1);
  /* flush what waits, bounded: a second at most, the upstream retried */
  double until = now_mono () + 1.0;
  while (A.up_len && now_mono () < until)
    {
      if (A.up_fd < 0)
        up_connect ();
      struct pollfd pf = { A.up_fd, POLLOUT, 0 };
      poll (&pf, A.up_fd >= 0 ? 1 : 0, A.up_fd >= 0 ? 50 : 100);
      up_flush ();
    }
  int status = 0;
  if (A.up_len)
    {
      size_t lines = 0;
      for (const char *p = A.up_buf; (p = memchr (p, '\n', (size_t) (A.up_buf + A.up_len - p))); p++)
        lines++;
      fprintf (stderr, "viper-lights-agent: %s: %zu line%s (%zu bytes) could not be delivered: %s\n",
               A.to_file ? A.out_path : A.to, lines, lines == 1 ? "" : "s", A.up_len,
               A.up_err[0] ? A.up_err : "not taken within a second");
      status = 1;
    }
  if (A.up_fd >= 0 && A.up_fd != 1)
    close (A.up_fd);
  return status;
}
