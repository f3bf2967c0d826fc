#include "collect/library_dirs.h"

#include <cstdlib>
#include <filesystem>
#include <set>

#include "collect/root_glob.h"
#include "parse/ld_so_conf.h"

namespace gpudoctor {
namespace {

constexpr const char* kDefaultDirs[] = {
    "/usr/local/nvidia/lib64",  // NVIDIA container toolkit / GPU operator
    "/usr/local/nvidia/lib",
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib/aarch64-linux-gnu",
    "/usr/lib64",
    "/lib64",
    "/usr/lib",
    "/lib",
};

class DirList {
 public:
  explicit DirList(const CollectContext& ctx) : ctx_(ctx) {}

  void Add(const std::string& path, const std::string& origin) {
    if (path.empty() || path.front() != '/' || !IsRootDir(ctx_, path)) return;
    std::error_code ec;
    auto real = std::filesystem::canonical(UnderRoot(ctx_, path), ec);
    const std::string key = ec ? path : real.string();
    if (!seen_.insert(key).second) return;
    dirs_.push_back(LibraryDir{path, origin});
  }

  std::vector<LibraryDir> Take() { return std::move(dirs_); }

 private:
  const CollectContext& ctx_;
  std::set<std::string> seen_;
  std::vector<LibraryDir> dirs_;
};

void AddConf(const CollectContext& ctx, const std::string& file, int depth, DirList& list,
             std::set<std::string>& visited, std::vector<SourceStatus>* sources) {
  if (depth > 4 || !visited.insert(file).second) return;
  auto text = ReadRootFile(ctx, file, 1 << 20);
  if (depth == 0 && sources != nullptr) sources->push_back(StatusOf(file, text));
  if (!text.ok()) return;
  const LdSoConf conf = ParseLdSoConf(*text);
  for (const auto& dir : conf.dirs) list.Add(dir, file);
  const std::string base = std::filesystem::path(file).parent_path().string();
  for (const auto& inc : conf.includes) {
    const std::string pattern = inc.front() == '/' ? inc : base + "/" + inc;
    for (const auto& match : GlobRoot(ctx, pattern, 256)) {
      AddConf(ctx, match, depth + 1, list, visited, sources);
    }
  }
}

}  // namespace

std::vector<LibraryDir> LibrarySearchDirs(const CollectContext& ctx,
                                          std::vector<SourceStatus>* sources) {
  DirList list(ctx);
  // LD_LIBRARY_PATH comes first for the loader; it only describes this
  // process's environment, so it is meaningless under another root.
  if (ctx.root == "/") {
    if (const char* env = std::getenv("LD_LIBRARY_PATH"); env != nullptr) {
      for (const auto& dir : SplitPathList(env)) list.Add(dir, "LD_LIBRARY_PATH");
    }
  }
  std::set<std::string> visited;
  AddConf(ctx, "/etc/ld.so.conf", 0, list, visited, sources);
  for (const char* dir : kDefaultDirs) list.Add(dir, "default");
  return list.Take();
}

}  // namespace gpudoctor
