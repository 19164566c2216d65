"""torch.distributed on MPI (mpi4py): process groups, collectives, point-to-point and object
collectives (c10d.py), the launcher (run.py). is_available() says whether mpi4py is installed;
without it programs that check take their single-process path, and init_process_group says
what to install."""
from .c10d import (Backend, GroupMember, P2POp, ProcessGroup, ReduceOp, Work,  # noqa: F401
                   all_gather, all_gather_into_tensor, all_gather_single, all_gather_object,
                   all_reduce, all_to_all, all_to_all_single, barrier, batch_isend_irecv, broadcast,
                   broadcast_object_list, default_pg_timeout, destroy_process_group, gather,
                   gather_object, get_backend, get_global_rank, get_process_group_ranks,
                   get_rank, get_world_size, group, init_process_group, irecv,
                   is_available, is_backend_available, is_gloo_available, is_initialized,
                   is_mpi_available, is_nccl_available, is_torchelastic_launched, isend,
                   monitored_barrier, new_group, recv, reduce, reduce_scatter,
                   reduce_scatter_single, reduce_scatter_tensor, scatter, scatter_object_list, send)
