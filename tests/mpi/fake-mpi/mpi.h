/* mpi.h - a fake MPI for test-mpi-req.c: just what libviper-mpi's request
 * tracker (probe/mpi/viper-mpi-req.c, viper-mpi-p2p.c) names, so that the
 * tracker can be compiled and driven alone, with no MPI installed and no
 * runtime.  Handles are pointers, as in Open MPI: MPI_REQUEST_NULL is the
 * address of an object, not 0, and a send that completes at once may be
 * given one shared, already completed request (Open MPI's
 * ompi_request_empty), so that several live requests have one handle value.
 * The fake's behaviour is test-mpi-req.c's (fake_* there). */
#ifndef FAKE_MPI_H
#define FAKE_MPI_H

typedef struct fake_request *MPI_Request;
typedef struct fake_comm *MPI_Comm;
typedef struct fake_type *MPI_Datatype;
typedef struct fake_message *MPI_Message;
typedef struct {
  int MPI_SOURCE, MPI_TAG, MPI_ERROR;
  int fake_bytes, fake_cancelled;
} MPI_Status;

extern struct fake_request fake_request_null;
extern struct fake_comm fake_comm_world;
extern struct fake_type fake_byte, fake_int;
extern struct fake_message fake_message_no_proc;

#define MPI_SUCCESS 0
#define MPI_ERR_OTHER 15
#define MPI_UNDEFINED (-32766)
#define MPI_ANY_SOURCE (-1)
#define MPI_ANY_TAG (-1)
#define MPI_PROC_NULL (-2)
#define MPI_THREAD_MULTIPLE 3
#define MPI_REQUEST_NULL (&fake_request_null)
#define MPI_COMM_WORLD (&fake_comm_world)
#define MPI_COMM_NULL ((MPI_Comm) 0)
#define MPI_BYTE (&fake_byte)
#define MPI_INT (&fake_int)
#define MPI_DATATYPE_NULL ((MPI_Datatype) 0)
#define MPI_MESSAGE_NO_PROC (&fake_message_no_proc)
#define MPI_STATUS_IGNORE ((MPI_Status *) 0)
#define MPI_STATUSES_IGNORE ((MPI_Status *) 0)

#define FAKE_BOTH(ret, name, args) ret MPI_##name args; ret PMPI_##name args;
FAKE_BOTH (int, Send, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FAKE_BOTH (int, Ssend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FAKE_BOTH (int, Bsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FAKE_BOTH (int, Rsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm))
FAKE_BOTH (int, Isend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                        MPI_Request *request))
FAKE_BOTH (int, Issend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request))
FAKE_BOTH (int, Ibsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request))
FAKE_BOTH (int, Irsend, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                         MPI_Request *request))
FAKE_BOTH (int, Recv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                       MPI_Status *status))
FAKE_BOTH (int, Irecv, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                        MPI_Request *request))
FAKE_BOTH (int, Mrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Status *status))
FAKE_BOTH (int, Imrecv, (void *buf, int count, MPI_Datatype datatype, MPI_Message *message, MPI_Request *request))
FAKE_BOTH (int, Probe, (int source, int tag, MPI_Comm comm, MPI_Status *status))
FAKE_BOTH (int, Iprobe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status))
FAKE_BOTH (int, Mprobe, (int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status))
FAKE_BOTH (int, Improbe, (int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                          MPI_Status *status))
FAKE_BOTH (int, Sendrecv, (const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                           MPI_Comm comm, MPI_Status *status))
FAKE_BOTH (int, Sendrecv_replace, (void *buf, int count, MPI_Datatype datatype, int dest, int sendtag, int source,
                                   int recvtag, MPI_Comm comm, MPI_Status *status))
FAKE_BOTH (int, Send_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                            MPI_Request *request))
FAKE_BOTH (int, Ssend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request *request))
FAKE_BOTH (int, Bsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request *request))
FAKE_BOTH (int, Rsend_init, (const void *buf, int count, MPI_Datatype datatype, int dest, int tag, MPI_Comm comm,
                             MPI_Request *request))
FAKE_BOTH (int, Recv_init, (void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                            MPI_Request *request))
FAKE_BOTH (int, Start, (MPI_Request *request))
FAKE_BOTH (int, Startall, (int count, MPI_Request requests[]))
FAKE_BOTH (int, Wait, (MPI_Request *request, MPI_Status *status))
FAKE_BOTH (int, Test, (MPI_Request *request, int *flag, MPI_Status *status))
FAKE_BOTH (int, Waitall, (int count, MPI_Request requests[], MPI_Status statuses[]))
FAKE_BOTH (int, Testall, (int count, MPI_Request requests[], int *flag, MPI_Status statuses[]))
FAKE_BOTH (int, Waitany, (int count, MPI_Request requests[], int *index, MPI_Status *status))
FAKE_BOTH (int, Testany, (int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status))
FAKE_BOTH (int, Waitsome, (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]))
FAKE_BOTH (int, Testsome, (int incount, MPI_Request requests[], int *outcount, int indices[], MPI_Status statuses[]))
FAKE_BOTH (int, Request_free, (MPI_Request *request))
FAKE_BOTH (int, Request_get_status, (MPI_Request request, int *flag, MPI_Status *status))
FAKE_BOTH (int, Cancel, (MPI_Request *request))
FAKE_BOTH (int, Test_cancelled, (const MPI_Status *status, int *flag))
FAKE_BOTH (int, Get_count, (const MPI_Status *status, MPI_Datatype datatype, int *count))
FAKE_BOTH (int, Type_size, (MPI_Datatype datatype, int *size))
#undef FAKE_BOTH

#endif
