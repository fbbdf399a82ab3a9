/* Dynamic processes (MPI-3.1 chapter 10), one program in every role:
 *
 *   dpm spawn      MPI_COMM_WORLD spawns 3 copies of this program ("child"),
 *                  then 1+2 more with MPI_Comm_spawn_multiple; each parent
 *                  and child exchanges messages over the intercommunicator
 *                  (eager and rendezvous sizes), merges it and reduces over
 *                  the union, dups and splits it, and disconnects.
 *   dpm ports      the world's two halves join through a port: the lower
 *                  half opens it and publishes its name, the upper half looks
 *                  it up and connects (one job, two groups).
 *   dpm join       ranks 0 and 1 join over a socket pair's ends (MPI_Comm_join).
 *   dpm loop F     spawns 2 and reduces with them until file F exists.
 *   dpm loopserver N F / loopclient N F   two jobs joined through a port
 *                  published under N reduce until file F exists (a
 *                  checkpoint of either is refused meanwhile, and both go on).
 *   dpm errors     the error cases: a command not found (MPI_ERR_SPAWN),
 *                  a port that is not one (MPI_ERR_PORT), a name not
 *                  published (MPI_ERR_NAME), a bad root (MPI_ERR_ROOT).
 */
#include <arpa/inet.h>
#include <mpi.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lz_test.h"

enum { kBig = 200000 };

/* Both sides of an intercommunicator: every process sends remote rank 0 a
 * small message and receives a large one from it (rendezvous sizes), which
 * it returns changed; then merge, allreduce, dup, intercomm allreduce,
 * disconnect. */
static void exercise(MPI_Comm inter, MPI_Comm local, int parent_side) {
  int rank, size, rsize;
  MPI_Comm_rank(inter, &rank);
  MPI_Comm_size(inter, &size);
  MPI_Comm_remote_size(inter, &rsize);
  int flag = 0;
  MPI_Comm_test_inter(inter, &flag);
  CHECK(flag, "not an intercommunicator");
  const int mine = parent_side ? 1000 : 2000, theirs = parent_side ? 2000 : 1000;
  int small = mine + rank;
  MPI_Request sreq[2];
  MPI_Isend(&small, 1, MPI_INT, 0, 7, inter, &sreq[0]);
  int *out = NULL, *in = malloc(sizeof(int) * kBig);
  MPI_Request* reqs = NULL;
  if (rank == 0) {
    /* To every remote process: its small message back in a large one. */
    out = malloc(sizeof(int) * kBig * (size_t)rsize);
    reqs = malloc(sizeof(MPI_Request) * (size_t)rsize);
    for (int r = 0; r < rsize; ++r) {
      int got = -1;
      MPI_Recv(&got, 1, MPI_INT, r, 7, inter, MPI_STATUS_IGNORE);
      CHECK(got == theirs + r, "small message from remote %d: %d", r, got);
      int* o = out + (size_t)r * kBig;
      for (int i = 0; i < kBig; ++i) o[i] = i * 3 + got;
      MPI_Isend(o, kBig, MPI_INT, r, 8, inter, &reqs[r]);
    }
  }
  MPI_Recv(in, kBig, MPI_INT, 0, 8, inter, MPI_STATUS_IGNORE);
  for (int i = 0; i < kBig; ++i) CHECK(in[i] == i * 3 + mine + rank, "large message: [%d] = %d", i, in[i]);
  for (int i = 0; i < kBig; ++i) in[i] = i * 5 + rank;
  MPI_Isend(in, kBig, MPI_INT, 0, 9, inter, &sreq[1]);
  if (rank == 0) {
    MPI_Waitall(rsize, reqs, MPI_STATUSES_IGNORE);
    for (int r = 0; r < rsize; ++r) {
      MPI_Recv(out, kBig, MPI_INT, r, 9, inter, MPI_STATUS_IGNORE);
      for (int i = 0; i < kBig; ++i) CHECK(out[i] == i * 5 + r, "returned message from %d: [%d] = %d", r, i, out[i]);
    }
  }
  MPI_Waitall(2, sreq, MPI_STATUSES_IGNORE);
  free(in);
  free(out);
  free(reqs);

  MPI_Comm merged;
  MPI_Intercomm_merge(inter, parent_side ? 0 : 1, &merged);
  int msize, mrank;
  MPI_Comm_size(merged, &msize);
  MPI_Comm_rank(merged, &mrank);
  CHECK(msize == size + rsize, "merged size %d, expected %d", msize, size + rsize);
  /* The parents come first (high = 0). */
  CHECK(mrank == (parent_side ? rank : rsize + rank), "merged rank %d", mrank);
  int sum = 0, one = mrank;
  MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, merged);
  CHECK(sum == msize * (msize - 1) / 2, "allreduce over the union: %d", sum);
  /* MPI_Intercomm_create over the union as peer communicator: the groups
   * are named across the two jobs. */
  MPI_Comm again;
  MPI_Intercomm_create(local, 0, merged, parent_side ? size : 0, 5, &again);
  int asize = 0, arsize = 0, got5 = -1;
  MPI_Comm_size(again, &asize);
  MPI_Comm_remote_size(again, &arsize);
  CHECK(asize == size && arsize == rsize, "intercomm_create over the union: %d + %d", asize, arsize);
  MPI_Allreduce(&rank, &got5, 1, MPI_INT, MPI_SUM, again);
  CHECK(got5 == rsize * (rsize - 1) / 2, "allreduce over the new intercommunicator: %d", got5);
  MPI_Comm_free(&again);
  MPI_Comm_free(&merged);

  MPI_Comm dup;
  MPI_Comm_dup(inter, &dup);
  int token = parent_side ? 11 : 22, got = 0;
  if (rank == 0) MPI_Sendrecv(&token, 1, MPI_INT, 0, 3, &got, 1, MPI_INT, 0, 3, dup, MPI_STATUS_IGNORE);
  if (rank == 0) CHECK(got == (parent_side ? 22 : 11), "dup: %d", got);
  int bsum = 0;
  MPI_Allreduce(&token, &bsum, 1, MPI_INT, MPI_SUM, dup); /* intercomm: the remote group's sum */
  CHECK(bsum == (parent_side ? 22 * rsize : 11 * rsize), "intercomm allreduce: %d", bsum);
  MPI_Comm_disconnect(&dup);
  CHECK(dup == MPI_COMM_NULL, "disconnect left the handle");
}

static void check_error(int err, int cls, const char* what) {
  int c = -1;
  MPI_Error_class(err, &c);
  CHECK(err != MPI_SUCCESS && c == cls, "%s: error %d, class %d, expected class %d", what, err, c, cls);
}

// The intercommunicator of two jobs joined through a port published under
// `name`: the server opens and publishes it, the client looks it up
// (retrying until it is there) and connects.
static MPI_Comm join_by_name(int server, const char* name, int rank) {
  char port[MPI_MAX_PORT_NAME] = "";
  MPI_Comm inter;
  if (server) {
    if (rank == 0) {
      MPI_Open_port(MPI_INFO_NULL, port);
      MPI_Publish_name(name, MPI_INFO_NULL, port);
    }
    MPI_Comm_accept(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
    if (rank == 0) {
      MPI_Unpublish_name(name, MPI_INFO_NULL, port);
      MPI_Close_port(port);
    }
  } else {
    if (rank == 0) {
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
      for (int i = 0; MPI_Lookup_name(name, MPI_INFO_NULL, port) != MPI_SUCCESS; ++i) {
        CHECK(i < 6000, "service %s never published", name);
        usleep(10000);
      }
      MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
    }
    MPI_Comm_connect(port, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter);
  }
  return inter;
}

// Both groups reduce over `inter` until `file` exists (the one process that
// `looks` tells everyone), then disconnect: checkpoints are asked for meanwhile.
static void loop_until(MPI_Comm inter, const char* file, int looks) {
  for (int stop = 0; !stop;) {
    int mine = looks ? access(file, F_OK) == 0 : 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, inter); /* the other group's */
    int here = mine || any;
    MPI_Allreduce(&here, &stop, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    usleep(20000);
  }
  MPI_Comm_disconnect(&inter);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm parent;
  MPI_Comm_get_parent(&parent);
  const char* mode = argc > 1 ? argv[1] : "spawn";

  if (strcmp(mode, "child") == 0) {
    CHECK(parent != MPI_COMM_NULL, "a spawned process without a parent");
    int rsize;
    MPI_Comm_remote_size(parent, &rsize);
    CHECK(argc > 2 && atoi(argv[2]) == rsize, "child: %d parents, argv says %s", rsize, argc > 2 ? argv[2] : "?");
    exercise(parent, MPI_COMM_WORLD, 0);
    MPI_Comm_disconnect(&parent);
    MPI_Comm again;
    MPI_Comm_get_parent(&again);
    CHECK(again == MPI_COMM_NULL, "the parent after MPI_Comm_disconnect");
    MPI_Finalize();
    return 0;
  }
  CHECK((parent != MPI_COMM_NULL) == (strcmp(mode, "loopchild") == 0), "a process nobody spawned has a parent");

  if (strcmp(mode, "spawn") == 0) {
    char n[16];
    snprintf(n, sizeof n, "%d", size);
    char* args[] = {"child", n, NULL};
    MPI_Comm inter;
    int codes[3] = {-1, -1, -1};
    MPI_Comm_spawn(argv[0], args, 3, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, codes);
    for (int i = 0; i < 3; ++i) CHECK(codes[i] == MPI_SUCCESS, "errcode %d: %d", i, codes[i]);
    int rsize;
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 3, "spawned %d processes, asked for 3", rsize);
    exercise(inter, MPI_COMM_WORLD, 1);
    MPI_Comm_disconnect(&inter);

    /* Two commands (the same program), 1 + 2 processes, one new job. */
    char* cmds[2] = {argv[0], argv[0]};
    char** argvs[2] = {args, args};
    int maxprocs[2] = {1, 2};
    MPI_Info infos[2];
    MPI_Info_create(&infos[0]);
    MPI_Info_create(&infos[1]);
    MPI_Info_set(infos[0], "wdir", "/tmp");
    MPI_Comm_spawn_multiple(2, cmds, argvs, maxprocs, infos, size - 1, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    MPI_Info_free(&infos[0]);
    MPI_Info_free(&infos[1]);
    MPI_Comm_remote_size(inter, &rsize);
    CHECK(rsize == 3, "spawn_multiple: %d processes, asked for 3", rsize);
    exercise(inter, MPI_COMM_WORLD, 1);
    MPI_Comm_disconnect(&inter);
  } else if (strcmp(mode, "ports") == 0) {
    CHECK(size >= 2, "ports needs 2 ranks");
    const int low = rank < size / 2;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, low, rank, &half);
    char port[MPI_MAX_PORT_NAME] = "";
    char service[64];
    const char* job = getenv("LZ_JOB_ID"); /* one name per job: tests run side by side */
    snprintf(service, sizeof service, "lz-dpm-test-%s", job ? job : "singleton");
    MPI_Comm inter;
    if (low) {
      if (rank == 0) {
        MPI_Open_port(MPI_INFO_NULL, port);
        MPI_Publish_name(service, MPI_INFO_NULL, port);
      }
      MPI_Barrier(MPI_COMM_WORLD);
      MPI_Comm_accept(port, MPI_INFO_NULL, 0, half, &inter);
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == 0) {
        MPI_Unpublish_name(service, MPI_INFO_NULL, port);
        MPI_Close_port(port);
      }
    } else {
      MPI_Barrier(MPI_COMM_WORLD);
      if (rank == size / 2) MPI_Lookup_name(service, MPI_INFO_NULL, port);
      MPI_Comm_connect(port, MPI_INFO_NULL, 0, half, &inter);
      MPI_Barrier(MPI_COMM_WORLD);
    }
    exercise(inter, half, low);
    MPI_Comm_disconnect(&inter);
    MPI_Comm_free(&half);
  } else if (strcmp(mode, "server") == 0 || strcmp(mode, "client") == 0) {
    /* Two jobs: the server publishes a port under argv[2], the client looks
     * it up (retrying until it is there) and connects. */
    CHECK(argc > 2, "%s needs a service name", mode);
    const int server = strcmp(mode, "server") == 0;
    MPI_Comm inter = join_by_name(server, argv[2], rank);
    exercise(inter, MPI_COMM_WORLD, server);
    MPI_Comm_disconnect(&inter);
  } else if (strcmp(mode, "loop") == 0 || strcmp(mode, "loopchild") == 0) {
    /* A parent job and 2 spawned processes reduce over their
     * intercommunicator until the file argv[2] exists. */
    CHECK(argc > 2, "loop needs a file name");
    MPI_Comm inter = parent;
    const int parents = strcmp(mode, "loop") == 0;
    if (parents) {
      char *args[] = {"loopchild", argv[2], NULL};
      MPI_Comm_spawn(argv[0], args, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    }
    loop_until(inter, argv[2], parents && rank == 0);
    if (!parents) {
      MPI_Finalize();
      return 0;
    }
  } else if (strcmp(mode, "loopserver") == 0 || strcmp(mode, "loopclient") == 0) {
    /* Two jobs joined through a port under argv[2] (not a spawn tree),
     * reducing until the file argv[3] exists. */
    CHECK(argc > 3, "%s needs a service name and a file name", mode);
    const int server = strcmp(mode, "loopserver") == 0;
    MPI_Comm inter = join_by_name(server, argv[2], rank);
    loop_until(inter, argv[3], server && rank == 0);
  } else if (strcmp(mode, "join") == 0) {
    CHECK(size >= 2, "join needs 2 ranks");
    /* Rank 0 listens on loopback, rank 1 connects: the socket MPI_Comm_join takes. */
    MPI_Comm inter = MPI_COMM_NULL;
    if (size > 2) CHECK(0, "join runs with 2 ranks");
    {
      int sv[1];
      if (rank == 0) {
        int ls = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(0x7f000001);
        socklen_t len = sizeof a;
        CHECK(bind(ls, (struct sockaddr*)&a, sizeof a) == 0 && listen(ls, 1) == 0, "listen");
        getsockname(ls, (struct sockaddr*)&a, &len);
        int port = ntohs(a.sin_port);
        MPI_Send(&port, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        /* accept() blocks outside MPI: the message must have arrived first. */
        MPI_Barrier(MPI_COMM_WORLD);
        sv[0] = accept(ls, NULL, NULL);
        close(ls);
      } else {
        int port;
        MPI_Recv(&port, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MPI_Barrier(MPI_COMM_WORLD);
        sv[0] = socket(AF_INET, SOCK_STREAM, 0);
        struct sockaddr_in a;
        memset(&a, 0, sizeof a);
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(0x7f000001);
        a.sin_port = htons(port);
        CHECK(connect(sv[0], (struct sockaddr*)&a, sizeof a) == 0, "connect");
      }
      MPI_Comm_join(sv[0], &inter);
      close(sv[0]);
      exercise(inter, MPI_COMM_SELF, rank == 0);
      MPI_Comm_disconnect(&inter);
    }
  } else if (strcmp(mode, "errors") == 0) {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm inter;
    int err = MPI_Comm_spawn("/nonexistent/lz-no-such-program", MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD,
                             &inter, MPI_ERRCODES_IGNORE);
    if (rank == 0)
      check_error(err, MPI_ERR_SPAWN, "spawn of a missing program");
    else
      CHECK(err != MPI_SUCCESS, "spawn of a missing program succeeded at rank %d", rank);
    CHECK(inter == MPI_COMM_NULL, "a failed spawn gave a communicator");
    err = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, size, MPI_COMM_WORLD, &inter, MPI_ERRCODES_IGNORE);
    check_error(err, MPI_ERR_ROOT, "spawn with a bad root");
    err = MPI_Comm_connect("not-a-port", MPI_INFO_NULL, 0, MPI_COMM_SELF, &inter);
    check_error(err, MPI_ERR_PORT, "connect to a bad port name");
    err = MPI_Close_port("not-a-port");
    check_error(err, MPI_ERR_PORT, "close of a port never opened");
    char port[MPI_MAX_PORT_NAME];
    err = MPI_Lookup_name("lz-dpm-test-never-published", MPI_INFO_NULL, port);
    check_error(err, MPI_ERR_NAME, "lookup of a name never published");
    err = MPI_Unpublish_name("lz-dpm-test-never-published", MPI_INFO_NULL, "x");
    check_error(err, MPI_ERR_SERVICE, "unpublish of a name never published");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) printf("dpm %s: %d ranks ok\n", mode, size);
  MPI_Finalize();
  return 0;
}
