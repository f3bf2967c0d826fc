// Recommended actions for the Xids seen most in the field, written from the
// catalog's trigger notes. Codes not listed
// here get the text of their immediate resolution bucket.
#include "knowledge/xid_catalog_rows.h"

namespace gpudoctor::xid_rows {

const Action kActions[] = {
    {8,
     "The GPU stopped processing work. Restart the application; if it recurs, check PCIe, "
     "power and temperature and contact support.",
     "GPU 停止处理任务。请重启应用；如反复出现，检查 PCIe、供电和温度并联系技术支持。"},
    {13,
     "Usually a bug in the application (out-of-range access, illegal instruction). Restart "
     "it and debug with compute-sanitizer or cuda-gdb; if the same GPC/TPC repeats across "
     "applications, run DCGM diagnostics.",
     "通常是应用程序缺陷（越界访问、非法指令）。请重启应用并用 compute-sanitizer 或 cuda-gdb "
     "调试；若不同应用在同一 GPC/TPC 反复出现，请运行 DCGM 诊断。"},
    {31,
     "GPU memory page fault, usually an application bug. Restart the application; if faults "
     "repeat on the same GPU with different applications, run DCGM diagnostics.",
     "GPU 显存页错误，通常是应用程序缺陷。请重启应用；若同一块 GPU 在不同应用下反复出现，请运行 "
     "DCGM 诊断。"},
    {32,
     "Corrupted push buffer stream, mostly a PCIe link quality problem. Restart the "
     "application and check the PCIe link (AER errors, replays, link width).",
     "推送缓冲区数据损坏，多为 PCIe 链路质量问题。请重启应用并检查 PCIe 链路（AER 错误、重放计数、"
     "链路宽度）。"},
    {43,
     "The application hit a software-induced fault and was stopped; the GPU stays healthy. "
     "No GPU action is needed; check the application.",
     "应用程序触发了软件错误并被终止，GPU 本身正常。无需对 GPU 操作，请检查应用程序。"},
    {45,
     "The driver cleaned up channels after an abort or an earlier error. Handle the Xid that "
     "caused it; if it appears alone on an NVSwitch system, restart the Fabric Manager.",
     "驱动在应用中止或先前错误后清理了通道。请处理引发它的那个 Xid；若在 NVSwitch 系统上单独出现，"
     "请重启 Fabric Manager。"},
    {48,
     "Uncorrectable (double-bit) ECC error. Reset the GPU; if Xid 63/64 accompany it, drain "
     "the GPU first. If it recurs, run field diagnostics and plan a replacement.",
     "发生不可纠正（双比特）ECC 错误。请重置 GPU；若同时出现 Xid 63/64，先排空任务再重置。"
     "反复出现时请运行现场诊断并准备更换。"},
    {54,
     "Auxiliary power is not connected. Power off and check the GPU's power cables and "
     "seating.",
     "GPU 辅助供电未连接。请关机检查 GPU 供电线缆和安装是否牢固。"},
    {62,
     "An internal micro-controller halted. Reset the GPU; if it recurs, collect "
     "nvidia-bug-report.sh output and contact support.",
     "GPU 内部微控制器停止运行。请重置 GPU；如反复出现，收集 nvidia-bug-report.sh 输出并联系"
     "技术支持。"},
    {63,
     "A memory row was marked for remapping (or a page retired). Reset the GPU when "
     "convenient to activate it; no immediate action is needed.",
     "显存行已标记待重映射（或页面已退役）。请在方便时重置 GPU 使其生效，无需立即处理。"},
    {64,
     "Memory remapping or page retirement failed. Reset the GPU; if it recurs, contact "
     "support for a replacement.",
     "显存重映射或页面退役失败。请重置 GPU；如反复出现，请联系技术支持更换。"},
    {74,
     "NVLink error. Check `nvidia-smi nvlink -e` and the peer GPU or NVSwitch; reset the GPU "
     "or reboot to clear it, and reseat or replace hardware if it repeats on the same link.",
     "NVLink 错误。请查看 `nvidia-smi nvlink -e` 及对端 GPU 或 NVSwitch；重置 GPU 或重启以清除，"
     "同一链路反复出现时请重新插拔或更换硬件。"},
    {79,
     "The GPU fell off the PCIe bus. Reboot the node; if it recurs, check the PCIe slot or "
     "riser, power cables and supply, and temperature, then replace the GPU.",
     "GPU 已从 PCIe 总线掉线。请重启节点；如反复出现，检查 PCIe 插槽或转接卡、供电线缆与电源、"
     "温度，必要时更换 GPU。"},
    {92,
     "High single-bit ECC error rate. No immediate action; watch the ECC counters and plan "
     "a replacement if they keep rising.",
     "单比特 ECC 错误率偏高。无需立即处理；请关注 ECC 计数，持续上升时准备更换。"},
    {94,
     "A memory error was contained to one application. Restart that application; other "
     "applications are unaffected. Reset the GPU when convenient.",
     "显存错误已被隔离在单个应用内。请重启该应用，其他应用不受影响；方便时重置 GPU。"},
    {95,
     "An uncontained memory error affects several applications. Stop them and reset the GPU "
     "before restarting them.",
     "未被隔离的显存错误影响多个应用。请停止这些应用并重置 GPU 后再重启。"},
    {109, "Context switch timeout. Reset the GPU; if it recurs, contact support.",
     "上下文切换超时。请重置 GPU；如反复出现，请联系技术支持。"},
    {119,
     "The GSP firmware did not answer an RPC in time. Reset the GPU (or power-cycle the "
     "node if that fails). On the proprietary driver, disabling GSP "
     "(NVreg_EnableGpuFirmware=0) is a known workaround; it is not possible on Blackwell.",
     "GSP 固件未及时响应 RPC。请重置 GPU（失败则对节点断电重启）。使用闭源驱动时，可禁用 GSP"
     "（NVreg_EnableGpuFirmware=0）作为规避手段；Blackwell 上无法禁用。"},
    {120,
     "The GSP firmware reported an error. Reset the GPU (or power-cycle the node). On the "
     "proprietary driver, disabling GSP (NVreg_EnableGpuFirmware=0) is a known "
     "workaround; it is not possible on Blackwell.",
     "GSP 固件报告错误。请重置 GPU（或对节点断电重启）。使用闭源驱动时，可禁用 GSP"
     "（NVreg_EnableGpuFirmware=0）作为规避手段；Blackwell 上无法禁用。"},
    {140,
     "Uncorrectable ECC errors interrupted page offlining or row remapping. Reset the GPU; "
     "if it persists, contact the vendor.",
     "不可纠正的 ECC 错误中断了页面下线或行重映射。请重置 GPU；如持续出现，请联系厂商。"},
    {154,
     "The driver states the recovery action the GPU needs (GPU reset, node reboot, drain "
     "and reset). Do what the message says.",
     "驱动给出了 GPU 所需的恢复操作（重置 GPU、重启节点、排空后重置）。请按消息所述处理。"},
};

const std::size_t kActionCount = sizeof(kActions) / sizeof(kActions[0]);

}  // namespace gpudoctor::xid_rows
