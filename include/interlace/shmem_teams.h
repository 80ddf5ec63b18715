/* Placeholder: the "shmemteam" helper's header (teams and collectives) replaces this file. */
