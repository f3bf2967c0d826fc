// What people paste into tickets around a tool's output, and the tool's
// output found inside it: `gpudoctor analyze` reads a small text file (a
// ticket's paste) through this before it tells its kind.
//
// Left out, each line whole:
//   - Markdown code fences (``` or ~~~, with a language or not);
//   - shell prompts with their command ("$ ", "# ", "bash-5.1# ",
//     "user@host:~$ ", "[user@host dir]$ ", "(venv) root@host:~# ") and a
//     tool's command line on its own ("nvidia-smi nvlink -s",
//     "/usr/bin/nvidia-smi --query", "sudo dmesg -T");
//   - elision lines ("....", "...", "[...]", "…", "<snip>", grep's "--");
//   - prose: a line of five words or more at the left margin that no tool
//     prints (a sentence before or after the output, "dmesg output error:").
// A "host: " prefix that pdsh, clush or talosctl put on most lines is
// removed from them (the host names are kept). Fences, prompts, command
// lines and prose end a block; each block is what one command printed, and
// is read as its own kind. Pure; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace gpudoctor {

struct PasteBlock {
  std::string text;        // the block's lines, cleaned, each ending in '\n'
  std::size_t first_line;  // 1-based line of the paste where the block starts
  std::size_t last_line;
  std::string command;  // the command line above it, when the paste shows one
};

struct Paste {
  std::vector<PasteBlock> blocks;
  std::size_t fences = 0, commands = 0, elisions = 0, prose_lines = 0;
  std::vector<std::string> hosts;  // the "host: " prefixes removed, in order of appearance
  // Whether the text has a fence, a prompt, a command line or host
  // prefixes: a paste rather than a tool's file. Prose and elisions alone
  // are not enough (a tool's own message is a sentence).
  bool Marked() const { return fences + commands > 0 || !hosts.empty(); }
};

Paste ReadPaste(std::string_view text);

// "2 fences, 1 command line (`nvidia-smi nvlink -s`), 1 elision, 2 lines of
// prose": what ReadPaste left out, for a note; "" when nothing.
std::string PasteLeftOut(const Paste& paste);

}  // namespace gpudoctor
