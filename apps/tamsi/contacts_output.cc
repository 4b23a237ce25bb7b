// --contacts: every contact of every step of a run.
#include "run_observers.h"
#include "run_outputs.h"

namespace tamsi::cli {
namespace {

class ContactsOutput : public scenes::RunObserver {
 public:
  ContactsOutput(const std::string& path, const scenes::Run& run)
      : writer_(path, ResumeBytes(run, "contacts", "--contacts")) {}
  void OnStep(const scenes::Run& run) override { writer_.Write(run.step() - 1, run.simulator()); }
  void OnStepFailed(const scenes::Run&) override { writer_.Flush(); }
  void OnFinish(const scenes::Run&) override { writer_.Close(); }
  void SaveTo(scenes::Checkpoint* checkpoint) override {
    checkpoint->output_bytes["contacts"] = writer_.FlushedBytes();
  }

 private:
  ContactWriter writer_;
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeContactsOutput(const RunArgs& args, scenes::Run* run) {
  if (args.request.contacts_path.empty()) return nullptr;
  return std::make_unique<ContactsOutput>(args.request.contacts_path, *run);
}

}  // namespace tamsi::cli
