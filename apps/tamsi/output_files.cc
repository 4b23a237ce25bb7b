#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "commands.h"

namespace tamsi::cli {

bool SamePath(const std::string& a, const std::string& b) {
  if (a.empty() || b.empty()) return false;
  std::error_code error;
  const std::filesystem::path x = std::filesystem::weakly_canonical(a, error);
  if (error) return false;
  const std::filesystem::path y = std::filesystem::weakly_canonical(b, error);
  return !error && x == y;
}

void CreateOutputDirectory(const std::string& flag, const std::string& dir) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error || !std::filesystem::is_directory(dir))
    throw CLI::RuntimeError(flag + ": cannot create directory '" + dir + "'" + (error ? ": " + error.message() : ""),
                            2);
}

void CheckOutput(const std::ofstream& out, const std::string& what, const std::string& path) {
  if (!out) throw CLI::RuntimeError("cannot write " + what + " '" + path + "' (disk full, or not writable)", 1);
}

void CloseOutput(std::ofstream& out, const std::string& what, const std::string& path) {
  if (out.is_open()) out.close();
  CheckOutput(out, what, path);
}

OutputLock::OutputLock(const std::string& path, const std::string& what) {
  struct stat status {};
  if (stat(path.c_str(), &status) == 0 && !S_ISREG(status.st_mode)) return;
  fd_ = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0 || flock(fd_, LOCK_EX | LOCK_NB) == 0) return;
  const bool held = errno == EWOULDBLOCK;
  close(fd_);
  fd_ = -1;
  if (held)
    throw CLI::RuntimeError(
        "the " + what + " '" + path + "' is being written by another run or output: choose another path", 2);
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) close(fd_);
}

LockFile::LockFile(const std::string& path, const std::string& what)
    : lock_path_(path + ".lock"), lock_(lock_path_, what + " lock file") {}

LockFile::~LockFile() { std::remove(lock_path_.c_str()); }

}  // namespace tamsi::cli
