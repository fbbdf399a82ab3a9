// cr/sealed: an example checkpoint back end built out of tree with the
// Lazarus SDK. It wraps the built-in application-level back end (cr/app):
// cr/app writes its portable rank files, then cr/sealed encrypts each of them
// in place with libsodium's crypto_secretbox (XSalsa20-Poly1305, a random
// nonce per file) under a key only the job's owner holds, so a snapshot store
// on shared or untrusted storage reveals nothing and a tampered file is
// refused. On a restart it decrypts the rank files into a private scratch
// copy of the snapshot and lets cr/app load from there.
//
// Sealed file: "LZSEALED1\n" (10 bytes), nonce (24), ciphertext + MAC (16).
// Sealed are the files cr/app writes (rank.<r>.lzck); what other components
// keep in the rank directory is theirs: crcp/c3's log of the messages that
// crossed the line stays in clear (a limit of wrapping at the cr level).
//
//   mpirun --mca component_path DIR --mca cr sealed --mca crcp c3
//          --mca cr_sealed_key_file ~/.lazarus/seal.key -np 4 ./prog
#pragma once

#include <array>
#include <memory>
#include <string>

#include "lazarus/frameworks/cr.h"

namespace sealed {

inline constexpr size_t kKeyBytes = 32;  // crypto_secretbox_KEYBYTES
using Key = std::array<unsigned char, kKeyBytes>;

class SealedModule final : public lz::cr::Module {
 public:
  SealedModule(std::unique_ptr<lz::cr::Module> inner, const Key& key) : inner_(std::move(inner)), key_(key) {}
  ~SealedModule() override;

  uint64_t capabilities() const override { return inner_->capabilities(); }
  lz::Status init() override { return inner_->init(); }
  lz::StatusOr<lz::cr::Outcome> checkpoint(const lz::cr::LocalSnapshot& snap) override {
    return inner_->checkpoint(snap);
  }
  // cr/app writes, then every file it added to save.dir is sealed in place
  // (written to a temporary, fsynced, renamed). Returns the sealed bytes.
  lz::StatusOr<uint64_t> save_variables(const lz::cr::AppSave& save) override;
  lz::StatusOr<lz::cr::AppSnapshotInfo> describe_snapshot(const std::string& snapshot_dir) override;
  // Errors of cr/app, and kDataLoss naming the file when one fails to open
  // under this key (tampered, truncated, or another key).
  lz::Status load_variables(const lz::cr::AppLoad& load) override;
  lz::Status finalize() override { return inner_->finalize(); }

 private:
  // A private (0700) scratch directory holding the snapshot's rank files
  // decrypted; removed with its contents by the destructor of the result.
  class Opened;
  lz::StatusOr<std::unique_ptr<Opened>> open_snapshot(const std::string& snapshot_dir) const;

  std::unique_ptr<lz::cr::Module> inner_;
  Key key_;
};

// Reads a key file: exactly kKeyBytes bytes, mode not readable by others.
lz::StatusOr<Key> read_key_file(const std::string& path);

}  // namespace sealed
