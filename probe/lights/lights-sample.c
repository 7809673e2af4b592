/* lights-sample.c - what the cluster lights agent measures every interval:
 * the node's CPU busy share (/proc/stat or a cgroup's accounting) and the
 * bytes its TCP connections had acknowledged, per peer (netlink socket
 * diagnostics, or per-interface counters); see viper-lights-agent.c. */
#include "lights-agent.h"

/* ---- load ---------------------------------------------------------------------- */

static int
read_proc_stat (unsigned long long *busy, unsigned long long *total)
{
  FILE *f = fopen ("/proc/stat", "r");
  if (!f)
    return -1;
  unsigned long long v[10] = { 0 };
  int n = fscanf (f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                  &v[5], &v[6], &v[7], &v[8], &v[9]);
  fclose (f);
  if (n < 4)
    return -1;
  *total = 0;
  /* guest and guest_nice are already in user and nice */
  for (int i = 0; i < 8 && i < n; i++)
    *total += v[i];
  *busy = *total - v[3] - (n > 4 ? v[4] : 0);
  return 0;
}

static int
read_cgroup_ns (unsigned long long *ns)
{
  char path[4096];
  snprintf (path, sizeof path, "%s/cpuacct.usage", A.cgroup);
  FILE *f = fopen (path, "r");
  if (f)
    {
      int ok = fscanf (f, "%llu", ns) == 1;
      fclose (f);
      return ok ? 0 : -1;
    }
  snprintf (path, sizeof path, "%s/cpu.stat", A.cgroup);
  f = fopen (path, "r");
  if (!f)
    return -1;
  char key[64];
  unsigned long long v;
  int ok = -1;
  while (fscanf (f, "%63s %llu", key, &v) == 2)
    if (strcmp (key, "usage_usec") == 0)
      {
        *ns = v * 1000;
        ok = 0;
        break;
      }
  fclose (f);
  return ok;
}

/* Busy share in per mille since the last call; -1 on the first. */
static int
sample_load (void)
{
  int load = -1;
  if (A.cgroup)
    {
      unsigned long long ns;
      double wall = now_mono ();
      if (read_cgroup_ns (&ns) < 0)
        die ("%s: no cpuacct.usage or cpu.stat usage_usec", A.cgroup);
      if (A.have_cpu && wall > A.cg_wall)
        load = (int) ((ns - A.cg_usage_ns) / 1e9 / (wall - A.cg_wall) / A.cpus * 1000 + 0.5);
      A.cg_usage_ns = ns;
      A.cg_wall = wall;
    }
  else
    {
      unsigned long long busy, total;
      if (read_proc_stat (&busy, &total) < 0)
        die ("/proc/stat: cannot read the cpu line");
      if (A.have_cpu && total > A.cpu_total)
        load = (int) ((busy - A.cpu_busy) * 1000.0 / (total - A.cpu_total) + 0.5);
      A.cpu_busy = busy;
      A.cpu_total = total;
    }
  A.have_cpu = 1;
  if (load > 1000)
    load = 1000;
  return load;
}

/* ---- traffic -------------------------------------------------------------------- */

typedef struct {
  long long node;
  unsigned long long bytes;
} PeerSum;

static long long
node_of (int family, const void *addr)
{
  size_t n = family == AF_INET ? 4 : 16;
  for (size_t i = 0; i < A.n_hosts; i++)
    if (A.hosts[i].family == family && memcmp (A.hosts[i].addr, addr, n) == 0)
      return A.hosts[i].node;
  /* IPv4-mapped IPv6 */
  if (family == AF_INET6)
    {
      static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
      if (memcmp (addr, mapped, 12) == 0)
        return node_of (AF_INET, (const unsigned char *) addr + 12);
    }
  return -1;
}

static void
add_peer (PeerSum *peers, size_t *n, long long node, unsigned long long bytes)
{
  for (size_t i = 0; i < *n; i++)
    if (peers[i].node == node)
      {
        peers[i].bytes += bytes;
        return;
      }
  if (*n < MAX_PEERS)
    peers[(*n)++] = (PeerSum) { node, bytes };
}

static Conn *
conn_get (uint64_t cookie, int *fresh)
{
  for (size_t i = 0; i < A.n_conns; i++)
    if (A.conns[i].cookie == cookie)
      {
        *fresh = 0;
        return &A.conns[i];
      }
  if (A.n_conns >= MAX_CONNS)
    return NULL;
  *fresh = 1;
  A.conns[A.n_conns] = (Conn) { cookie, 0, 0 };
  return &A.conns[A.n_conns++];
}

static int
own_port (int port)
{
  return port && (port == A.up_port || port == A.listen_port);
}

/* One family's TCP sockets through NETLINK_SOCK_DIAG; 0 ok, -1 unavailable. */
static int
diag_family (int family, PeerSum *peers, size_t *n_peers, int first)
{
  int fd = socket (AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
  if (fd < 0)
    return -1;
  struct {
    struct nlmsghdr nlh;
    struct inet_diag_req_v2 r;
  } req = { 0 };
  req.nlh.nlmsg_len = sizeof req;
  req.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  req.nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
  req.r.sdiag_family = (unsigned char) family;
  req.r.sdiag_protocol = IPPROTO_TCP;
  req.r.idiag_states = ~(1u << 10);     /* every state but LISTEN */
  req.r.idiag_ext = 1 << (INET_DIAG_INFO - 1);
  struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
  if (sendto (fd, &req, sizeof req, 0, (struct sockaddr *) &sa, sizeof sa) < 0)
    {
      close (fd);
      return -1;
    }
  static char buf[65536];
  int done = 0, rc = 0;
  for (int rounds = 0; !done && rounds < 100000; rounds++)
    {
      ssize_t len = recv (fd, buf, sizeof buf, 0);
      if (len <= 0)
        {
          rc = -1;
          break;
        }
      for (struct nlmsghdr *h = (struct nlmsghdr *) buf; NLMSG_OK (h, (size_t) len); h = NLMSG_NEXT (h, len))
        {
          if (h->nlmsg_type == NLMSG_DONE)
            {
              done = 1;
              break;
            }
          if (h->nlmsg_type == NLMSG_ERROR)
            {
              rc = -1;
              done = 1;
              break;
            }
          struct inet_diag_msg *m = NLMSG_DATA (h);
          int sport = ntohs (m->id.idiag_sport), dport = ntohs (m->id.idiag_dport);
          if (own_port (sport) || own_port (dport))
            continue;
          struct tcp_info *ti = NULL;
          size_t ti_len = 0;
          int alen = (int) (h->nlmsg_len - NLMSG_LENGTH (sizeof *m));
          for (struct rtattr *at = (struct rtattr *) (m + 1); RTA_OK (at, alen); at = RTA_NEXT (at, alen))
            if (at->rta_type == INET_DIAG_INFO)
              {
                ti = RTA_DATA (at);
                ti_len = RTA_PAYLOAD (at);
              }
          if (!ti || ti_len < offsetof (struct tcp_info, tcpi_bytes_acked) + sizeof (uint64_t))
            continue;
          uint64_t cookie = (uint64_t) m->id.idiag_cookie[0] | (uint64_t) m->id.idiag_cookie[1] << 32;
          int fresh;
          Conn *c = conn_get (cookie, &fresh);
          if (!c)
            continue;
          uint64_t acked = ti->tcpi_bytes_acked;
          /* a connection there at the first sample is the baseline; a new one
           * later sent everything it has since the last sample */
          uint64_t delta = fresh ? (first ? 0 : acked) : acked >= c->acked ? acked - c->acked : 0;
          c->acked = acked;
          c->seen = 1;
          if (!delta)
            continue;
          long long node = node_of (family, m->id.idiag_dst);
          if (node >= 0 && node != A.node)
            add_peer (peers, n_peers, node, delta);
        }
    }
  close (fd);
  return rc;
}

static int
sample_diag (PeerSum *peers, size_t *n_peers, int first)
{
  for (size_t i = 0; i < A.n_conns; i++)
    A.conns[i].seen = 0;
  int rc4 = diag_family (AF_INET, peers, n_peers, first);
  int rc6 = diag_family (AF_INET6, peers, n_peers, first);
  /* forget connections that are gone */
  size_t k = 0;
  for (size_t i = 0; i < A.n_conns; i++)
    if (A.conns[i].seen)
      A.conns[k++] = A.conns[i];
  A.n_conns = k;
  return rc4 < 0 && rc6 < 0 ? -1 : 0;
}

static void
sample_ifaces (PeerSum *peers, size_t *n_peers, int first)
{
  FILE *f = fopen ("/proc/net/dev", "r");
  if (!f)
    return;
  char line[512];
  while (fgets (line, sizeof line, f))
    {
      char *colon = strchr (line, ':');
      if (!colon)
        continue;
      *colon = 0;
      char *name = line;
      while (*name == ' ')
        name++;
      unsigned long long v[16];
      if (sscanf (colon + 1, "%llu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                  &v[5], &v[6], &v[7], &v[8]) != 9)
        continue;
      for (size_t i = 0; i < A.n_ifaces; i++)
        if (strcmp (A.ifaces[i].iface, name) == 0)
          {
            unsigned long long tx = v[8];
            if (A.ifaces[i].have && !first && tx >= A.ifaces[i].last && tx > A.ifaces[i].last)
              add_peer (peers, n_peers, A.ifaces[i].node, tx - A.ifaces[i].last);
            A.ifaces[i].last = tx;
            A.ifaces[i].have = 1;
          }
    }
  fclose (f);
}

void
agent_sample (int first)
{
  int load = sample_load ();
  static PeerSum peers[MAX_PEERS];
  size_t n = 0;
  if (!A.interfaces_only && A.diag_ok)
    {
      if (sample_diag (peers, &n, first) < 0)
        {
          A.diag_ok = 0;
          message ("socket diagnostics unavailable: per-interface counters from now on");
        }
    }
  if (A.interfaces_only || !A.diag_ok)
    sample_ifaces (peers, &n, first);
  if (first)
    return;
  if (load >= 0)
    tram (40, "%d %d", load, A.interval_ms);
  if (n || A.had_peers)
    {
      char *words = malloc (n * 48 + 32);
      if (!words)
        die ("out of memory");
      size_t w = (size_t) sprintf (words, "%d", A.interval_ms);
      for (size_t i = 0; i < n; i++)
        w += (size_t) sprintf (words + w, " %lld %llu", peers[i].node, peers[i].bytes);
      tram (41, "%s", words);
      free (words);
    }
  A.had_peers = n > 0;
}
