// --contacts: every contact of every step of a run.
#include "run_observers.h"
#include "run_outputs.h"

namespace tamsi::cli {
namespace {

class ContactsOutput : public CsvOutput<ContactWriter> {
 public:
  ContactsOutput(const std::string& path, const scenes::Run& run)
      : CsvOutput("contacts", path, ResumeBytes(run, "contacts", "--contacts")) {}
  void OnStep(const scenes::Run& run) override { writer_.Write(run.step() - 1, run.simulator()); }
};

}  // namespace

std::unique_ptr<scenes::RunObserver> MakeContactsOutput(const RunArgs& args, scenes::Run* run) {
  if (args.request.contacts_path.empty()) return nullptr;
  return std::make_unique<ContactsOutput>(args.request.contacts_path, *run);
}

}  // namespace tamsi::cli
