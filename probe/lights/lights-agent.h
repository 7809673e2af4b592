/* lights-agent.h - the cluster lights agent's state, shared by the agent
 * (viper-lights-agent.c: options, upstream, trams, the tree of children)
 * and its sampling (lights-sample.c: CPU load and per-peer TCP traffic).
 * Plain C, no GLib. */
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/tcp.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define MAX_CHILDREN_HARD 64
#define MAX_PEERS 4096
#define MAX_CONNS 65536
#define UPSTREAM_LIMIT (64u << 20)     /* bytes waiting for the upstream */
#define CHILD_LINE_MAX 65536

typedef struct {
  unsigned char addr[16];
  int family;
  long long node;
} HostEntry;

typedef struct {
  uint64_t cookie;
  uint64_t acked;
  int seen;                 /* in this sample */
} Conn;

typedef struct {
  int fd;
  char *buf;
  size_t len, cap;
  long long *nodes;         /* the subtree: PROCs of the lines it sent */
  size_t n_nodes, cap_nodes;
  int ending;               /* it said it ends (AGENT_BYE): its close is no loss */
  char name[96];           /* "host:port": a numeric host of up to 63 characters, a port of up to 15 */
} Child;

/* The last line an agent sends before it closes on purpose (--count done,
 * SIGTERM, SIGINT): a comment, which readers skip; its parent takes it and
 * reports the child ended, not lost. */
#define AGENT_BYE "# viper-lights-agent: ends\n"

typedef struct {
  char *iface;
  long long node;
  unsigned long long last;
  int have;
} IfaceMap;

typedef struct {
  long long node, parent_node;
  char *to, *listen, *hosts_path, *cgroup, *out_path;
  int interval_ms, max_children, cpus, count, interfaces_only, verbose;
  HostEntry *hosts;
  size_t n_hosts;
  IfaceMap *ifaces;
  size_t n_ifaces;
  long long seq;
  /* upstream */
  int up_fd;
  int to_file;
  char *up_buf;
  size_t up_len, up_cap;
  size_t up_sent;           /* bytes of up_buf written to this connection (a line in part at most) */
  char up_err[160];         /* why the upstream is not connected now ("" when it is) */
  int up_port, listen_port;
  /* children */
  int listen_fd;
  Child children[MAX_CHILDREN_HARD];
  int n_children;
  /* sampling */
  unsigned long long cpu_busy, cpu_total;
  unsigned long long cg_usage_ns;
  double cg_wall;
  int have_cpu;
  Conn *conns;
  size_t n_conns;
  int diag_ok;
  int had_peers;
} AgentState;

extern AgentState A;   /* the agent: options and what it keeps between samples */

/* viper-lights-agent.c */
void die (const char *fmt, ...) __attribute__ ((format (printf, 1, 2), noreturn));
double now_mono (void);
/* One tram of this node: REC 4, EV, SEQ then the words of fmt. */
void tram (int ev, const char *fmt, ...) __attribute__ ((format (printf, 2, 3)));
/* A message tram (one Unicode code point per field). */
void message (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

/* lights-sample.c: sample the load and the traffic and write their trams
 * (first: the first sample, which only sets the baselines) */
void agent_sample (int first);
