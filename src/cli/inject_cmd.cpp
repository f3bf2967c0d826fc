// gpudoctor inject --xid CODE --gpu BUS: writes the line NVIDIA's driver
// prints for that Xid (knowledge/xid_line.h) into the kernel log through
// /dev/kmsg, so that an operator can drill the whole chain (the agent's
// finding, the alert, the drain) on a node that is not failing. Root only,
// and only after a confirmation (--yes, or typing "inject" at a terminal):
// every monitor on the node takes the line for a real fault. With --root the
// file ROOT/dev/kmsg stands in for the device (tests): the record is
// appended as /dev/kmsg shows it ("12,<seq>,<usec>,-;<line>").
#include <fcntl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "collect/collect_context.h"
#include "collect/kmsg.h"
#include "knowledge/xid_line.h"

namespace gpudoctor {
namespace {

struct InjectOptions {
  int xid = 0;
  std::string gpu;
  bool yes = false;
  std::string root = "/";
};

bool Confirmed(const InjectOptions& o, const std::string& line) {
  if (o.yes) return true;
  if (isatty(STDIN_FILENO) == 0) {
    std::cerr << "gpudoctor inject: not confirmed: give --yes (standard input is not a terminal)\n";
    return false;
  }
  std::cerr << "This writes a fake fault into the kernel log:\n  " << line
            << "\nEvery monitor on this node (gpudoctor's agent, DCGM, node-problem-detector) "
               "will take it for a real one: alerts may fire and the node may be drained.\n"
               "Type 'inject' to go on: ";
  std::string answer;
  std::getline(std::cin, answer);
  if (answer == "inject") return true;
  std::cerr << "gpudoctor inject: not confirmed; nothing written\n";
  return false;
}

// Appends the record as /dev/kmsg would show it: facility user (1), level
// warning (4), the next sequence number, microseconds since the boot.
Status AppendRecordFile(const std::string& root, const std::string& line) {
  CollectContext ctx;
  ctx.root = root;
  const std::string path = root + "/dev/kmsg";
  auto boot = ReadBootTime(ctx);
  if (!boot) return Error{ErrorCode::kNotFound, boot.error().message};
  std::uint64_t seq = 0;
  {
    std::ifstream in(path);
    std::string l;
    while (std::getline(in, l)) {
      if (auto r = ParseKmsgRecord(l)) seq = std::max(seq, r->seq);
    }
  }
  const auto usec = std::chrono::duration_cast<std::chrono::microseconds>(
                        std::chrono::system_clock::now() - *boot)
                        .count();
  std::ofstream out(path, std::ios::app);
  out << "12," << seq + 1 << "," << std::max<long long>(usec, 0) << ",-;" << line << "\n";
  out.flush();
  if (!out) return Error{ErrorCode::kIo, path + ": cannot append"};
  return OkStatus();
}

Status WriteKmsg(const std::string& line) {
  const int fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    const int e = errno;
    return Error{e == EACCES || e == EPERM ? ErrorCode::kPermission : ErrorCode::kIo,
                 std::string("/dev/kmsg: ") + std::strerror(e) +
                     (e == EACCES || e == EPERM ? " (run as root)" : "")};
  }
  // One write is one record; "<4>": level warning (the kernel files it
  // under the user facility).
  const std::string record = "<4>" + line + "\n";
  const ssize_t n = write(fd, record.data(), record.size());
  const int e = errno;
  close(fd);
  if (n != static_cast<ssize_t>(record.size())) {
    return Error{ErrorCode::kIo, std::string("/dev/kmsg: ") + std::strerror(e)};
  }
  return OkStatus();
}

int RunInject(const InjectOptions& o) {
  auto line = XidKernelLine(o.xid, o.gpu);
  if (!line) {
    std::cerr << "gpudoctor inject: " << line.error().message << "\n";
    return kExitCannotRun;
  }
  if (!Confirmed(o, *line)) return kExitCannotRun;
  const bool device = o.root == "/" || o.root.empty();
  auto written = device ? WriteKmsg(*line) : AppendRecordFile(o.root, *line);
  if (!written) {
    std::cerr << "gpudoctor inject: " << written.error().message << "\n";
    return kExitCannotRun;
  }
  std::cout << "Written to " << (device ? std::string("/dev/kmsg") : o.root + "/dev/kmsg") << ": "
            << *line << "\n";
  return kExitOk;
}

}  // namespace

void RegisterInject(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<InjectOptions>();
  CLI::App* cmd = app.add_subcommand(
      "inject", "Write a catalog-correct Xid line into the kernel log, to drill alerts and drains");
  cmd->add_option("--xid", o->xid, "The Xid code (one NVIDIA's catalog documents)")->required();
  cmd->add_option("--gpu", o->gpu, "The GPU's PCI bus id (0000:18:00.0)")->required();
  cmd->add_flag("--yes", o->yes, "Do not ask for confirmation");
  cmd->add_option("--root", o->root, "Write ROOT/dev/kmsg (a file standing in for the device)")
      ->capture_default_str();
  cmd->callback([o, exit_code] { *exit_code = RunInject(*o); });
}

}  // namespace gpudoctor
