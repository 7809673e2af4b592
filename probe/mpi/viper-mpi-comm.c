/* viper-mpi-comm.c - communicators: world ranks and subset ids.
 *
 * Records name processors by their MPI_COMM_WORLD rank, so every
 * communicator gets a table from its ranks to world ranks, built on first use
 * and cached as an MPI attribute (its delete callback frees it when the
 * program frees the communicator, so a recycled handle never sees a stale
 * table).  An intercommunicator translates through its remote group.
 *
 * Collectives name their communicator by a subset id (spec section 3),
 * MPI_COMM_WORLD included (id 1; -1 "all processors" only for a world too
 * large for one definition line: a live viewer cannot know "all" before
 * every rank has connected).  The
 * id must be the same on every member and different for every communicator,
 * also for two disjoint communicators made by one split, so the members agree
 * on it collectively right where the communicator is made: the member with
 * the smallest world rank (the leader) proposes 1 + its world rank + world
 * size * (communicators it led before), and broadcasts it on the new
 * communicator.  A communicator made by a call this library does not wrap
 * agrees the same way inside its first recorded collective (all members are
 * in it).  The subset definition line is written by each member before its
 * first collective on the communicator (identical copies in every file).
 */
#include "viper-mpi.h"

#include <stdlib.h>

static int keyval = MPI_KEYVAL_INVALID;
static MPI_Group world_group = MPI_GROUP_NULL;

void
vm_comm_ref (VmComm *c)
{
  if (c && c != &vm.world)
    c->refs++;
}

void
vm_comm_unref (VmComm *c)
{
  if (!c || c == &vm.world)
    return;
  if (--c->refs == 0)
    {
      free (c->world);
      free (c);
    }
}

static int
comm_delete (MPI_Comm comm, int kv, void *attr, void *extra)
{
  (void) comm;
  (void) kv;
  (void) extra;
  vm_lock ();
  vm_comm_unref (attr);
  vm_unlock ();
  return MPI_SUCCESS;
}

void
vm_comm_init (void)
{
  vm.world.refs = 1;
  vm.world.size = vm.size;
  vm.world.world = NULL;
  /* MPI_COMM_WORLD is defined explicitly, like any communicator (the id rank
   * 0 would get as its first lead), so that a live viewer knows its members
   * before every rank has connected: "all processors" (-1) is only known
   * once all have.  A world too large for one line (65,536 bytes) is -1. */
  vm.world.subset = vm.size <= 8000 ? 1 : -1;
  if (vm.rank == 0 && vm.world.subset == 1)
    vm.comms_led = 1;
  PMPI_Comm_group (MPI_COMM_WORLD, &world_group);
  PMPI_Comm_create_keyval (MPI_COMM_NULL_COPY_FN, comm_delete, &keyval, NULL);
}

void
vm_comm_fini (void)
{
  if (keyval != MPI_KEYVAL_INVALID)
    PMPI_Comm_free_keyval (&keyval);
  if (world_group != MPI_GROUP_NULL)
    PMPI_Group_free (&world_group);
}

VmComm *
vm_comm_get (MPI_Comm comm)
{
  if (comm == MPI_COMM_WORLD || keyval == MPI_KEYVAL_INVALID)
    return &vm.world;
  void *attr = NULL;
  int flag = 0;
  if (PMPI_Comm_get_attr (comm, keyval, &attr, &flag) == MPI_SUCCESS && flag)
    return attr;
  VmComm *c = calloc (1, sizeof *c);
  if (!c)
    return &vm.world;
  MPI_Group g;
  PMPI_Comm_test_inter (comm, &c->inter);
  if (c->inter)
    PMPI_Comm_remote_group (comm, &g);
  else
    PMPI_Comm_group (comm, &g);
  PMPI_Group_size (g, &c->size);
  int *ranks = malloc (sizeof (int) * (size_t) (c->size > 0 ? c->size : 1));
  c->world = malloc (sizeof (int) * (size_t) (c->size > 0 ? c->size : 1));
  if (!ranks || !c->world)
    {
      free (ranks);
      free (c->world);
      free (c);
      PMPI_Group_free (&g);
      return &vm.world;
    }
  for (int i = 0; i < c->size; i++)
    ranks[i] = i;
  PMPI_Group_translate_ranks (g, c->size, ranks, world_group, c->world);
  for (int i = 0; i < c->size; i++)
    c->outside |= c->world[i] == MPI_UNDEFINED;
  free (ranks);
  PMPI_Group_free (&g);
  c->refs = 1;
  PMPI_Comm_set_attr (comm, keyval, c);
  return c;
}

int
vm_comm_world_rank (const VmComm *c, int rank)
{
  if (rank == MPI_ANY_SOURCE)
    return -1;
  if (!c->world || rank < 0 || rank >= c->size)
    return rank;
  return c->world[rank] == MPI_UNDEFINED ? -1 : c->world[rank];
}

/* A process of another world (MPI_Comm_spawn, MPI_Comm_connect / accept,
 * MPI_Comm_join) has no processor number in this trace: a message to or from
 * it is not recorded, like one to MPI_PROC_NULL (the spawned world itself is
 * not traced: viper-mpi-init.c). */
int
vm_comm_outside (const VmComm *c, int rank)
{
  return c->world && rank >= 0 && rank < c->size && c->world[rank] == MPI_UNDEFINED;
}

/* collective over COMM: every member gets the same id */
static void
agree (VmComm *c, MPI_Comm comm)
{
  int leader = 0;
  for (int i = 1; i < c->size; i++)
    if (c->world[i] < c->world[leader])
      leader = i;
  int64_t id = 0;
  if (c->world[leader] == vm.rank)
    id = 1 + vm.rank + (int64_t) vm.size * vm.comms_led++;
  PMPI_Bcast (&id, 1, MPI_INT64_T, leader, comm);
  c->subset = id;
}

void
vm_comm_created (MPI_Comm newcomm)
{
  if (newcomm == MPI_COMM_NULL)
    return;
  VmComm *c = vm_comm_get (newcomm);
  /* a communicator with members of another world is not agreed on: they are
   * not traced and would not take part (collectives on it are not recorded) */
  if (c != &vm.world && !c->inter && !c->outside && c->subset == 0)
    agree (c, newcomm);
}

int
vm_comm_subset (VmComm *c, MPI_Comm comm, int64_t t)
{
  if (c->inter || c->outside)
    return 0;
  if (c->subset == -1)
    {
      c->defined = 1;
      return 1;
    }
  if (c->subset == 0)
    agree (c, comm);
  if (!c->defined)
    {
      /* -202 -812 T -1 -1 N 2 SUBSET M1 ... (members in communicator rank order) */
      int64_t small[65], *d = c->size < 64 ? small : malloc (sizeof (int64_t) * (size_t) (c->size + 1));
      if (!d)
        return 1;
      d[0] = c->subset;
      for (int i = 0; i < c->size; i++)
        d[i + 1] = c->world ? c->world[i] : i;
      vm_emit_line (VM_SUBSET_REC, VM_EV_SUBSET, t, -1, -1, c->size + 1, d);
      if (d != small)
        free (d);
      c->defined = 1;
    }
  return 1;
}

/* ---- the calls that make communicators: agree on the subset id there ---- */

#define CREATED(call, out)                                          \
  do                                                                \
    {                                                               \
      int rc_ = (call);                                             \
      if (rc_ == MPI_SUCCESS && vm.active) \
        vm_comm_created (*(out));                                   \
      return rc_;                                                   \
    }                                                               \
  while (0)

int
MPI_Comm_dup (MPI_Comm comm, MPI_Comm *newcomm)
{
  CREATED (PMPI_Comm_dup (comm, newcomm), newcomm);
}

int
MPI_Comm_dup_with_info (MPI_Comm comm, MPI_Info info, MPI_Comm *newcomm)
{
  CREATED (PMPI_Comm_dup_with_info (comm, info, newcomm), newcomm);
}

int
MPI_Comm_split (MPI_Comm comm, int color, int key, MPI_Comm *newcomm)
{
  CREATED (PMPI_Comm_split (comm, color, key, newcomm), newcomm);
}

int
MPI_Comm_split_type (MPI_Comm comm, int split_type, int key, MPI_Info info, MPI_Comm *newcomm)
{
  CREATED (PMPI_Comm_split_type (comm, split_type, key, info, newcomm), newcomm);
}

int
MPI_Comm_create (MPI_Comm comm, MPI_Group group, MPI_Comm *newcomm)
{
  CREATED (PMPI_Comm_create (comm, group, newcomm), newcomm);
}

int
MPI_Comm_create_group (MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *newcomm)
{
  CREATED (PMPI_Comm_create_group (comm, group, tag, newcomm), newcomm);
}

int
MPI_Cart_create (MPI_Comm comm, int ndims, const int dims[], const int periods[], int reorder,
                 MPI_Comm *newcomm)
{
  CREATED (PMPI_Cart_create (comm, ndims, dims, periods, reorder, newcomm), newcomm);
}

int
MPI_Cart_sub (MPI_Comm comm, const int remain_dims[], MPI_Comm *newcomm)
{
  CREATED (PMPI_Cart_sub (comm, remain_dims, newcomm), newcomm);
}

int
MPI_Graph_create (MPI_Comm comm, int nnodes, const int index[], const int edges[], int reorder,
                  MPI_Comm *newcomm)
{
  CREATED (PMPI_Graph_create (comm, nnodes, index, edges, reorder, newcomm), newcomm);
}

int
MPI_Intercomm_merge (MPI_Comm intercomm, int high, MPI_Comm *newcomm)
{
  CREATED (PMPI_Intercomm_merge (intercomm, high, newcomm), newcomm);
}
