/* pmix_boot.c -- the bootstrap id through PMIx (pmix_boot.h). */
#include "pmix_boot.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "log.h"

#ifndef CHORUS_HAVE_PMIX

int pmix_launched(void) { return 0; }

chorus_result_t pmix_share_id(boot_id_t *id, int rank, int nranks) {
  (void)id, (void)rank, (void)nranks;
  return err_set(chorus_invalid_usage, "this libchorus was built without PMIx (install libpmix-dev and rebuild)");
}

#else

#include <dlfcn.h>
#include <pmix.h>

#define KEY "chorus.bootstrap"

/* The PMIx calls used, found in libpmix at run time. */
typedef struct {
  pmix_status_t (*init)(pmix_proc_t *, pmix_info_t[], size_t);
  pmix_status_t (*finalize)(const pmix_info_t[], size_t);
  pmix_status_t (*put)(pmix_scope_t, const char[], pmix_value_t *);
  pmix_status_t (*commit)(void);
  pmix_status_t (*fence)(const pmix_proc_t[], size_t, const pmix_info_t[], size_t);
  pmix_status_t (*get)(const pmix_proc_t *, const char[], const pmix_info_t[], size_t, pmix_value_t **);
  const char *(*error_string)(pmix_status_t);
} pmix_api_t;

static chorus_result_t open_api(pmix_api_t *api) {
  void *h = dlopen("libpmix.so.2", RTLD_NOW | RTLD_GLOBAL);
  if (!h) h = dlopen("libpmix.so", RTLD_NOW | RTLD_GLOBAL);
  if (!h)
    return err_set(chorus_system_error, "a PMIx launcher started this process (PMIX_NAMESPACE is set) but libpmix "
                                        "cannot be loaded: %s", dlerror());
  struct {
    const char *name;
    void **slot;
  } syms[] = {{"PMIx_Init", (void **)&api->init},     {"PMIx_Finalize", (void **)&api->finalize},
              {"PMIx_Put", (void **)&api->put},       {"PMIx_Commit", (void **)&api->commit},
              {"PMIx_Fence", (void **)&api->fence},   {"PMIx_Get", (void **)&api->get},
              {"PMIx_Error_string", (void **)&api->error_string}};
  for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++)
    if (!(*syms[i].slot = dlsym(h, syms[i].name)))
      return err_set(chorus_system_error, "libpmix has no %s", syms[i].name);
  return chorus_success; /* the library stays loaded: PMIx keeps threads of its own */
}

int pmix_launched(void) {
  const char *ns = getenv("PMIX_NAMESPACE");
  return ns && ns[0];
}

static chorus_result_t fail(const pmix_api_t *api, const char *call, pmix_status_t st) {
  return err_set(chorus_remote_error, "PMIx: %s failed: %s (%d)", call, api->error_string(st), (int)st);
}

chorus_result_t pmix_share_id(boot_id_t *id, int rank, int nranks) {
  pmix_api_t api;
  TRY(open_api(&api));
  pmix_proc_t me;
  pmix_status_t st = api.init(&me, NULL, 0);
  if (st != PMIX_SUCCESS) return fail(&api, "PMIx_Init", st);
  chorus_result_t res = chorus_success;
  if ((int)me.rank != rank) {
    res = err_set(chorus_invalid_usage, "PMIx says this is rank %u but the launcher's environment says %d",
                  (unsigned)me.rank, rank);
    goto out;
  }
  char where[96];
  net_addr_str(&id->root, where, sizeof where);
  if (rank == 0) {
    LOG_INFO_("INIT", "rank 0 of %d: serves the bootstrap at %s; its id (a random secret, nothing derived from the "
                      "job id) goes through the launcher's PMIx server (namespace %s)", nranks, where, me.nspace);
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)id;
    v.data.bo.size = sizeof *id;
    if ((st = api.put(PMIX_GLOBAL, KEY, &v)) != PMIX_SUCCESS) {
      res = fail(&api, "PMIx_Put", st);
      goto out;
    }
    if ((st = api.commit()) != PMIX_SUCCESS) {
      res = fail(&api, "PMIx_Commit", st);
      goto out;
    }
  }
  /* Every rank of the job: after this, rank 0's id is in the store. */
  if ((st = api.fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) {
    res = fail(&api, "PMIx_Fence", st);
    goto out;
  }
  if (rank != 0) {
    pmix_proc_t root;
    memset(&root, 0, sizeof root);
    memcpy(root.nspace, me.nspace, sizeof root.nspace);
    root.rank = 0;
    pmix_value_t *v = NULL;
    if ((st = api.get(&root, KEY, NULL, 0, &v)) != PMIX_SUCCESS) {
      res = fail(&api, "PMIx_Get of rank 0's bootstrap id", st);
      goto out;
    }
    if (v->type != PMIX_BYTE_OBJECT || v->data.bo.size != sizeof *id) {
      res = err_set(chorus_remote_error, "PMIx: rank 0's %s is %zu bytes of type %d, not a Chorus id of %zu", KEY,
                    v->type == PMIX_BYTE_OBJECT ? v->data.bo.size : 0, (int)v->type, sizeof *id);
    } else {
      memcpy(id, v->data.bo.bytes, sizeof *id);
      if (id->magic != BOOT_MAGIC) res = err_set(chorus_remote_error, "PMIx: rank 0's %s is not a Chorus id", KEY);
    }
    if (v->type == PMIX_BYTE_OBJECT) free(v->data.bo.bytes);
    free(v);
  }
  /* Rank 0 must not leave PMIx before the others have its id. */
  if (res == chorus_success && (st = api.fence(NULL, 0, NULL, 0)) != PMIX_SUCCESS) res = fail(&api, "PMIx_Fence", st);
  if (res == chorus_success && rank != 0) {
    net_addr_str(&id->root, where, sizeof where);
    LOG_INFO_("INIT", "rank %d of %d: bootstrap id taken from the launcher's PMIx server (namespace %s): rank 0 at "
                      "%s, a random secret", rank, nranks, me.nspace, where);
  }
out:
  api.finalize(NULL, 0);
  return res;
}

#endif
