// transport/ucx, the cases that need UCX's own API in the test: a UCP worker
// outside the job sending to a rank, and the TLS check against the
// transports UCX finds. Links liblazarus_ucx (and so UCX) directly.
#include <gtest/gtest.h>
#include <ucp/api/ucp.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "lazarus/registry.h"
#include "transport_job.h"
#include "ucx_exchange.h"
#include "ucx_address.h"
#include "ucx_config.h"
#include "ucx_frame.h"
#include "ucx_library.h"
#include "ucx_transport.h"
#include "ucx_worker.h"

namespace lz::test::ucx {
namespace {

using namespace ::lz::transport::ucx;

// A UCP worker of the same host that is not a rank of this job (it learnt
// rank 0's address) sends active messages with our id: a header of the
// wrong size, a wrong job tag, the right tag of another job's secret. Rank 0
// must deliver none of them, and the real frames after them in order.
TEST(UcxDirect, FramesFromOutsideTheJobAreRefused) {
  JobSpec spec{.transport = "ucx", .nprocs = 2};
  const JobResult r = run_job(spec, [](Child& c) {
    if (c.rank() == 1) {
      auto text = c.modex().get(0, kModexKey);
      CT_ASSERT(c, text.ok()) << text.status().to_string();
      auto addr = decode_address(*text);
      CT_ASSERT(c, addr.ok()) << addr.status().to_string();
      UcxWorker stranger;
      Status s = stranger.open({.tls = default_config().tls, .name = "stranger", .on_am = nullptr, .am_arg = nullptr});
      CT_ASSERT(c, s.ok()) << s.to_string();
      ucp_ep_params_t ep{};
      ep.field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS;
      ep.address = reinterpret_cast<const ucp_address_t*>(addr->worker.data());
      ucp_ep_h h = nullptr;
      CT_ASSERT(c, ucp_ep_create(stranger.worker(), &ep, &h) == UCS_OK);
      struct Attack {
        std::string header;
        const char* what;
      };
      FrameHeader wrong_tag{job_tag(c.job_secret()) ^ 1, 1, kData, 0};
      FrameHeader other_job{job_tag("another job's secret"), 1, kData, 0};
      FrameHeader bye_forged{job_tag("another job's secret"), 1, kBye, 0};
      const Attack attacks[] = {
          {std::string(7, 'h'), "a 7-byte header"},
          {std::string(reinterpret_cast<const char*>(&wrong_tag), sizeof wrong_tag), "a wrong job tag"},
          {std::string(reinterpret_cast<const char*>(&other_job), sizeof other_job), "another job's tag"},
          {std::string(reinterpret_cast<const char*>(&bye_forged), sizeof bye_forged), "a forged bye"},
      };
      const std::string payload(1000, 'Z');
      for (const auto& a : attacks) {
        ucp_request_param_t p{};
        void* req = ucp_am_send_nbx(h, kAmId, a.header.data(), a.header.size(), payload.data(), payload.size(), &p);
        CT_ASSERT(c, !UCS_PTR_IS_ERR(req)) << a.what << ": " << ucs_status_string(UCS_PTR_STATUS(req));
        while (req != nullptr && ucp_request_check_status(req) == UCS_INPROGRESS) ucp_worker_progress(stranger.worker());
        if (req != nullptr) ucp_request_free(req);
      }
      ucp_request_param_t fp{};
      void* freq = ucp_ep_flush_nbx(h, &fp);
      while (freq != nullptr && !UCS_PTR_IS_ERR(freq) && ucp_request_check_status(freq) == UCS_INPROGRESS)
        ucp_worker_progress(stranger.worker());
      if (freq != nullptr && !UCS_PTR_IS_ERR(freq)) ucp_request_free(freq);
      CT_ASSERT(c, c.post(0, "attacked"));
      CT_ASSERT(c, c.wait_post().has_value());  // rank 0 has progressed past the attack
      ucp_request_param_t cp{};
      cp.op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS;
      cp.flags = UCP_EP_CLOSE_FLAG_FORCE;
      void* creq = ucp_ep_close_nbx(h, &cp);
      while (creq != nullptr && !UCS_PTR_IS_ERR(creq) && ucp_request_check_status(creq) == UCS_INPROGRESS)
        ucp_worker_progress(stranger.worker());
      if (creq != nullptr && !UCS_PTR_IS_ERR(creq)) ucp_request_free(creq);
      stranger.close();
    } else {
      CT_ASSERT(c, c.wait_post().has_value());
      for (int i = 0; i < 1000; ++i) c.progress();
      CT_EXPECT(c, c.inbox().empty()) << c.inbox().size() << " frame(s) from outside the job were delivered (first: "
                                      << c.inbox().front().data.size() << " bytes from rank "
                                      << c.inbox().front().src << ")";
      CT_ASSERT(c, c.post(1, "done"));
    }
    CT_ASSERT(c, c.sync());
    CT_ASSERT(c, exchange(c, 200, mixed_size)) << "real traffic after the attack (a forged bye must not stop it)";
  });
  for (const auto& p : r.problems()) ADD_FAILURE() << p;
}

TEST(UcxDirect, TlsCheckedAgainstWhatUcxFinds) {
  Status s = check_tls("posixx,tcp", "transport_ucx_tls");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'posixx,tcp'"), std::string::npos) << s.to_string();
  EXPECT_NE(s.message().find("no transport posixx"), std::string::npos) << s.to_string();
  EXPECT_NE(s.message().find("tcp"), std::string::npos) << s.to_string();
  EXPECT_TRUE(check_tls(default_config().tls, "transport_ucx_tls").ok());
  EXPECT_TRUE(check_tls("^sysv", "transport_ucx_tls").ok());
  EXPECT_TRUE(check_tls("sm,tcp:aux", "transport_ucx_tls").ok());
}

}  // namespace
}  // namespace lz::test::ucx
