#!/usr/bin/env python3
"""gen-switchnet.py - the switchnet demos: models, route files, parameter and job files.

  gen-switchnet.py torus4 DIR    the paper's 4-switch, 48-node example (one row of
                                 four 16-port switches cabled into a ring; setup/switchnet/torus4
                                 is this output)
  gen-switchnet.py cplant DIR    a 624-node cluster: 13 rows x 4 columns of 16-port switches
                                 (12 processor ports, 4 network ports), a 2-D torus, with
                                 dimension-order routes, and the paper's two analyses:
                                 bad packets spreading from one failing cable
                                 (badpackets.par, badpackets.init) and six jobs with
                                 fragmented allocations (traffic.par, jobs.job, jobs.init)

Everything is deterministic (no randomness), so tests can compute the expected values.
"""
import os
import sys

P = 12  # processor ports 0..11; network ports 12..15


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def routes(dirpath, nodes, route_of):
    os.makedirs(dirpath, exist_ok=True)
    for s in range(nodes):
        lines = []
        for d in range(nodes):
            lines.append(" ".join(str(b) for b in route_of(s, d)) if s != d else "")
        write(os.path.join(dirpath, "%d.rt" % s), "\n".join(lines) + "\n")


def torus4(out):
    os.makedirs(out, exist_ok=True)
    m = ["# The paper's four-switch, 48-node example: one row of 16-port switches,",
         "# 12 processor ports and 4 network ports each, two cables east and two west;",
         "# the switches at both ends of the row are cabled together (a torus).",
         "rows 1", "columns 4", "planes 1", "processor_ports 12", "network_ports 4",
         "# ports along each side, in visual order",
         "portdef A north 0 1 2 3 4 5 south 6 7 8 9 10 11 east 12 13 west 14 15",
         "rowdef 0 A A A A"]
    for i in range(4):
        m.append("switch s%d 0 %d 0 %d" % (i, i, 12 * i))
    for i in range(4):
        j = (i + 1) % 4
        m.append("link s%d.12 s%d.14" % (i, j))
        m.append("link s%d.13 s%d.15" % (i, j))
    m += ["routes routes .rt", "init torus4.init", ""]
    write(os.path.join(out, "torus4.swm"), "\n".join(m))
    write(os.path.join(out, "torus4.init"),
          "# range of interest and colours (fractions of red, green, blue)\n"
          "min 0\nmax 100\nabove 1 1 0\nbelow 0.5 0.5 0.5\nbackground 0.08 0.08 0.1\n"
          "switch 0.35 0.37 0.42\nroute 0.1 0.9 0.3\nlinks 0.75 0.75 0.75\n"
          "view network\nmode slice\n")

    def route(s, d):
        a, b = s // P, d // P
        k = (b - a) % 4
        east, west = (12, 14) if d % 2 == 0 else (13, 15)
        hops = {0: [], 1: [east], 2: [east, east], 3: [west]}[k]
        return hops + [d % P]
    routes(os.path.join(out, "routes"), 48, route)
    # a parameter file: packets per port over 6 steps, and the jobs
    par = ["# packets per port and time step (ports not listed: 0)",
           "s0.12 10 20 30 40 50 60", "s1.14 10 20 30 40 50 60",
           "s1.12 0 0 150 150 0 0", "s2.14 0 0 150 150 0 0",
           "n0 5 5 5 5 5 5", "n13 80 90 100 110 120 130", "n30 -5 -5 0 0 0 0"]
    write(os.path.join(out, "packets.par"), "\n".join(par) + "\n")
    jobs = ["# job id per processor port and time step (0: no job)"]
    for n in range(48):
        j = 1 if n < 18 else (2 if n < 30 else 0)
        jobs.append("n%d %s" % (n, " ".join([str(j)] * 6)))
    write(os.path.join(out, "jobs.job"), "\n".join(jobs) + "\n")


ROWS, COLS = 13, 4


def cplant(out):
    os.makedirs(out, exist_ok=True)
    sw = lambda r, c: "r%dc%d" % (r, c)
    m = ["# A 624-node cluster: 13 rows x 4 columns of 16-port switches, a 2-D torus.",
         "# Ports 0-11 processor ports; 12 east, 13 west, 14 north, 15 south.",
         "rows %d" % ROWS, "columns %d" % COLS, "planes 1", "processor_ports 12", "network_ports 4",
         "portdef A north 14 0 1 2 3 4 5 south 15 6 7 8 9 10 11 east 12 west 13"]
    for r in range(ROWS):
        for c in range(COLS):
            m.append("switch %s %d %d 0 %d" % (sw(r, c), r, c, (r * COLS + c) * P))
    for r in range(ROWS):
        for c in range(COLS):
            m.append("link %s.12 %s.13" % (sw(r, c), sw(r, (c + 1) % COLS)))
            m.append("link %s.15 %s.14" % (sw(r, c), sw((r + 1) % ROWS, c)))
    m += ["routes routes .rt", ""]
    write(os.path.join(out, "cplant.swm"), "\n".join(m))

    def route(s, d):
        a, b = s // P, d // P
        r0, c0, r1, c1 = a // COLS, a % COLS, b // COLS, b % COLS
        hops = []
        dc = (c1 - c0) % COLS
        hops += [12] * dc if dc <= COLS // 2 else [13] * (COLS - dc)
        dr = (r1 - r0) % ROWS
        hops += [15] * dr if dr <= ROWS // 2 else [14] * (ROWS - dr)
        return hops + [d % P]
    routes(os.path.join(out, "routes"), ROWS * COLS * P, route)

    # 1. bad packets from one failing cable: between r12c1.14 and r11c1.15.
    #    The failing port r12c1.14 counts thousands; the ports that receive
    #    the corrupted packets forwarded out of r12c1 count far fewer.
    steps = 20
    par = ["# bad packets per port and time step: one failing cable (r12c1 north)"]
    par.append("r12c1.14 " + " ".join(str(0 if t < 5 else 400 * (t - 4)) for t in range(steps)))
    for lab in ("r12c2.13", "r12c0.12", "r0c1.14"):
        par.append(lab + " " + " ".join(str(1 if t >= 6 and t % 2 == 0 else 0) for t in range(steps)))
    par.append("r11c1.15 " + " ".join(str(1 if t in (9, 10) else 0) for t in range(steps)))
    write(os.path.join(out, "badpackets.par"), "\n".join(par) + "\n")
    write(os.path.join(out, "badpackets.init"),
          "# bad packets: below 1 grey, above 100 yellow\nmodel cplant.swm\nmin 1\nmax 100\nbelow 0.5 0.5 0.5\n"
          "above 1 1 0\nview network\nmode running\n")

    # 2. six jobs (50 to 128 nodes) with fragmented allocations; job 3 stalls
    sizes = [128, 100, 90, 64, 80, 50]
    order = []
    # the allocator walks rows in an interleaved order: fragmentation
    for r in [0, 12, 1, 8, 2, 7, 3, 4, 6, 5, 9, 11, 10]:
        for c in range(COLS):
            order += [(r * COLS + c) * P + p for p in range(P)]
    job_of = {}
    k = 0
    for j, size in enumerate(sizes, start=1):
        for n in order[k:k + size]:
            job_of[n] = j
        k += size
    steps = 8
    jobs, traffic = ["# job id per processor port (0: no job)"], ["# packets sent per processor port and step"]
    for n in range(ROWS * COLS * P):
        j = job_of.get(n, 0)
        jobs.append("n%d %s" % (n, " ".join([str(j)] * steps)))
        if j:
            per = 9000 if j == 3 else (60000 if j == 5 else 120000)
            traffic.append("n%d %s" % (n, " ".join(str(per + 100 * t) for t in range(steps))))
    write(os.path.join(out, "jobs.job"), "\n".join(jobs) + "\n")
    write(os.path.join(out, "traffic.par"), "\n".join(traffic) + "\n")
    write(os.path.join(out, "jobs.init"),
          "# traffic: below 15000 black, above 100000 yellow; jobs shown\nmodel cplant.swm\nmin 15000\nmax 100000\n"
          "below 0 0 0\nabove 1 1 0\nview processor\nmode slice\njobs on\n")


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("torus4", "cplant"):
        sys.stderr.write(__doc__)
        sys.exit(2)
    {"torus4": torus4, "cplant": cplant}[sys.argv[1]](sys.argv[2])
