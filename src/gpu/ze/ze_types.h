/* ze_types.h - the few Level Zero types, values and entry points gtl_ze.c uses, declared here (values and layouts
 * from ze_api.h 1.x) so neither the library nor the stand-in loader in tests/fakeze needs the Level Zero headers. */
#ifndef GSHMEM_ZE_TYPES_H
#define GSHMEM_ZE_TYPES_H

#include <stddef.h>
#include <stdint.h>

typedef int zt_result;
typedef void *zt_driver, *zt_device, *zt_context, *zt_cmdlist, *zt_pool, *zt_event, *zt_module, *zt_kernel;

#define ZT_SUCCESS 0
#define ZT_NOT_READY 1
#define ZT_ERROR_DEVICE_LOST 0x70000001
#define ZT_ERROR_OUT_OF_HOST_MEMORY 0x70000002
#define ZT_ERROR_OUT_OF_DEVICE_MEMORY 0x70000003
#define ZT_ERROR_MODULE_BUILD_FAILURE 0x70000004
#define ZT_ERROR_INSUFFICIENT_PERMISSIONS 0x70010000
#define ZT_ERROR_NOT_AVAILABLE 0x70010001
#define ZT_ERROR_UNINITIALIZED 0x78000001
#define ZT_ERROR_UNSUPPORTED_VERSION 0x78000002
#define ZT_ERROR_UNSUPPORTED_FEATURE 0x78000003
#define ZT_ERROR_INVALID_ARGUMENT 0x78000004
#define ZT_ERROR_INVALID_NULL_HANDLE 0x78000005
#define ZT_ERROR_HANDLE_OBJECT_IN_USE 0x78000006
#define ZT_ERROR_INVALID_NULL_POINTER 0x78000007
#define ZT_ERROR_INVALID_SIZE 0x78000008
#define ZT_ERROR_UNSUPPORTED_SIZE 0x78000009
#define ZT_ERROR_UNSUPPORTED_ALIGNMENT 0x7800000a
#define ZT_ERROR_INVALID_SYNCHRONIZATION_OBJECT 0x7800000b
#define ZT_ERROR_INVALID_ENUMERATION 0x7800000c
#define ZT_ERROR_INVALID_NATIVE_BINARY 0x7800000f
#define ZT_ERROR_INVALID_KERNEL_NAME 0x78000011
#define ZT_ERROR_INVALID_GROUP_SIZE_DIMENSION 0x78000013
#define ZT_ERROR_INVALID_KERNEL_ARGUMENT_INDEX 0x78000015
#define ZT_ERROR_INVALID_KERNEL_ARGUMENT_SIZE 0x78000016
#define ZT_ERROR_UNKNOWN 0x7ffffffe

#define ZT_INIT_FLAG_GPU_ONLY 1
#define ZT_DEVICE_TYPE_GPU 1
#define ZT_DEVICE_PROPERTY_FLAG_INTEGRATED 1
#define ZT_MEMORY_TYPE_UNKNOWN 0
#define ZT_MEMORY_TYPE_HOST 1
#define ZT_MEMORY_TYPE_DEVICE 2
#define ZT_MEMORY_TYPE_SHARED 3
#define ZT_QUEUE_GROUP_COMPUTE 1
#define ZT_QUEUE_GROUP_COPY 2
#define ZT_QUEUE_MODE_ASYNCHRONOUS 2
#define ZT_EVENT_POOL_FLAG_HOST_VISIBLE 1
#define ZT_EVENT_SCOPE_FLAG_HOST 4
#define ZT_MODULE_FORMAT_IL_SPIRV 0
#define ZT_ACCESS_CAP_RW 1
#define ZT_ACCESS_CAP_ATOMIC 2
#define ZT_ACCESS_CAP_CONCURRENT 4
#define ZT_ACCESS_CAP_CONCURRENT_ATOMIC 8
#define ZT_PCI_PROPERTIES_EXT_NAME "ZE_extension_pci_properties"

/* structure types (stype) */
#define ZT_STYPE_DEVICE_PROPERTIES 0x3
#define ZT_STYPE_QUEUE_GROUP_PROPERTIES 0x6
#define ZT_STYPE_DEVICE_MEMORY_PROPERTIES 0x7
#define ZT_STYPE_MEMORY_ACCESS_PROPERTIES 0x8
#define ZT_STYPE_DEVICE_P2P_PROPERTIES 0xb
#define ZT_STYPE_CONTEXT_DESC 0xd
#define ZT_STYPE_QUEUE_DESC 0xe
#define ZT_STYPE_EVENT_POOL_DESC 0x10
#define ZT_STYPE_EVENT_DESC 0x11
#define ZT_STYPE_DEVICE_MEM_ALLOC_DESC 0x15
#define ZT_STYPE_HOST_MEM_ALLOC_DESC 0x16
#define ZT_STYPE_MEMORY_ALLOCATION_PROPERTIES 0x17
#define ZT_STYPE_MODULE_DESC 0x1b
#define ZT_STYPE_KERNEL_DESC 0x1d
#define ZT_STYPE_PCI_EXT_PROPERTIES 0x10008

typedef struct {
    int stype;
    void *pNext;
    int type;
    uint32_t vendorId, deviceId, flags, subdeviceId, coreClockRate;
    uint64_t maxMemAllocSize;
    uint32_t maxHardwareContexts, maxCommandQueuePriority, numThreadsPerEU, physicalEUSimdWidth, numEUsPerSubslice,
        numSubslicesPerSlice, numSlices;
    uint64_t timerResolution;
    uint32_t timestampValidBits, kernelTimestampValidBits;
    uint8_t uuid[16];
    char name[256];
} zt_device_properties;
#define ZT_DEVICE_P2P_PROPERTY_FLAG_ACCESS 1
#define ZT_DEVICE_P2P_PROPERTY_FLAG_ATOMICS 2
typedef struct {
    int stype;
    void *pNext;
    uint32_t flags;
} zt_device_p2p_properties;
typedef struct {
    int stype;
    void *pNext;
    uint32_t flags, maxClockRate, maxBusWidth;
    uint64_t totalSize;
    char name[256];
} zt_device_memory_properties;
typedef struct {
    int stype;
    void *pNext;
    uint32_t hostAllocCapabilities, deviceAllocCapabilities, sharedSingleDeviceAllocCapabilities,
        sharedCrossDeviceAllocCapabilities, sharedSystemAllocCapabilities;
} zt_memory_access_properties;
typedef struct {
    int stype;
    void *pNext;
    uint32_t flags;
    size_t maxMemoryFillPatternSize;
    uint32_t numQueues;
} zt_queue_group_properties;
typedef struct {
    int stype;
    void *pNext;
    uint32_t domain, bus, device, function;
    int32_t genVersion, width;
    int64_t maxBandwidth;
} zt_pci_ext_properties;
typedef struct {
    char name[256];
    uint32_t version;
} zt_driver_extension_properties;
typedef struct {
    int stype;
    const void *pNext;
    uint32_t flags;
} zt_context_desc, zt_host_mem_alloc_desc;
typedef struct {
    int stype;
    const void *pNext;
    uint32_t flags, ordinal;
} zt_device_mem_alloc_desc;
typedef struct {
    int stype;
    void *pNext;
    int type;
    uint64_t id, pageSize;
} zt_memory_allocation_properties;
typedef struct {
    int stype;
    const void *pNext;
    uint32_t ordinal, index, flags;
    int mode, priority;
} zt_queue_desc;
typedef struct {
    int stype;
    const void *pNext;
    uint32_t flags, count;
} zt_event_pool_desc;
typedef struct {
    int stype;
    const void *pNext;
    uint32_t index, signal, wait;
} zt_event_desc;
typedef struct {
    int stype;
    const void *pNext;
    int format;
    size_t inputSize;
    const uint8_t *pInputModule;
    const char *pBuildFlags;
    const void *pConstants;
} zt_module_desc;
typedef struct {
    int stype;
    const void *pNext;
    uint32_t flags;
    const char *pKernelName;
} zt_kernel_desc;
typedef struct {
    uint32_t x, y, z;
} zt_group_count;
typedef struct {
    uint32_t originX, originY, originZ, width, height, depth;
} zt_copy_region;
#define ZT_IPC_HANDLE_SIZE 64
typedef struct {
    char data[ZT_IPC_HANDLE_SIZE];
} zt_ipc_handle;

/* name in the loader, parameter list, field of the backend's table (every entry point returns ze_result_t) */
#define ZE_SYMBOLS(X)                                                                                                  \
    X("zeInit", (uint32_t), init)                                                                                      \
    X("zeDriverGet", (uint32_t *, zt_driver *), driver_get)                                                            \
    X("zeDriverGetApiVersion", (zt_driver, uint32_t *), api_version)                                                   \
    X("zeDriverGetExtensionProperties", (zt_driver, uint32_t *, zt_driver_extension_properties *), driver_ext)         \
    X("zeDeviceGet", (zt_driver, uint32_t *, zt_device *), device_get)                                                 \
    X("zeDeviceGetProperties", (zt_device, zt_device_properties *), device_props)                                      \
    X("zeDeviceGetMemoryProperties", (zt_device, uint32_t *, zt_device_memory_properties *), device_mem_props)         \
    X("zeDeviceGetMemoryAccessProperties", (zt_device, zt_memory_access_properties *), device_access_props)            \
    X("zeDeviceGetCommandQueueGroupProperties", (zt_device, uint32_t *, zt_queue_group_properties *), queue_groups)    \
    X("zeDeviceCanAccessPeer", (zt_device, zt_device, uint8_t *), can_access_peer)                                     \
    X("zeDeviceGetP2PProperties", (zt_device, zt_device, zt_device_p2p_properties *), p2p_props)                       \
    X("zeContextCreate", (zt_driver, const zt_context_desc *, zt_context *), context_create)                           \
    X("zeContextDestroy", (zt_context), context_destroy)                                                               \
    X("zeMemAllocDevice", (zt_context, const zt_device_mem_alloc_desc *, size_t, size_t, zt_device, void **),          \
      mem_alloc_device)                                                                                                \
    X("zeMemAllocHost", (zt_context, const zt_host_mem_alloc_desc *, size_t, size_t, void **), mem_alloc_host)         \
    X("zeMemFree", (zt_context, void *), mem_free)                                                                     \
    X("zeMemGetAllocProperties", (zt_context, const void *, zt_memory_allocation_properties *, zt_device *),           \
      mem_props)                                                                                                       \
    X("zeMemGetAddressRange", (zt_context, const void *, void **, size_t *), mem_range)                                \
    X("zeMemGetIpcHandle", (zt_context, const void *, zt_ipc_handle *), ipc_get)                                       \
    X("zeMemOpenIpcHandle", (zt_context, zt_device, zt_ipc_handle, uint32_t, void **), ipc_open)                       \
    X("zeMemCloseIpcHandle", (zt_context, const void *), ipc_close)                                                    \
    X("zeCommandListCreateImmediate", (zt_context, zt_device, const zt_queue_desc *, zt_cmdlist *), list_create)       \
    X("zeCommandListDestroy", (zt_cmdlist), list_destroy)                                                              \
    X("zeCommandListAppendMemoryCopy", (zt_cmdlist, void *, const void *, size_t, zt_event, uint32_t, zt_event *),     \
      append_copy)                                                                                                     \
    X("zeCommandListAppendMemoryCopyRegion",                                                                           \
      (zt_cmdlist, void *, const zt_copy_region *, uint32_t, uint32_t, const void *, const zt_copy_region *, uint32_t, \
       uint32_t, zt_event, uint32_t, zt_event *),                                                                      \
      append_copy_region)                                                                                              \
    X("zeCommandListAppendMemoryFill",                                                                                 \
      (zt_cmdlist, void *, const void *, size_t, size_t, zt_event, uint32_t, zt_event *), append_fill)                 \
    X("zeCommandListAppendLaunchKernel",                                                                               \
      (zt_cmdlist, zt_kernel, const zt_group_count *, zt_event, uint32_t, zt_event *), append_launch)                  \
    X("zeEventPoolCreate", (zt_context, const zt_event_pool_desc *, uint32_t, zt_device *, zt_pool *), pool_create)    \
    X("zeEventPoolDestroy", (zt_pool), pool_destroy)                                                                   \
    X("zeEventCreate", (zt_pool, const zt_event_desc *, zt_event *), event_create)                                     \
    X("zeEventDestroy", (zt_event), event_destroy)                                                                     \
    X("zeEventHostSynchronize", (zt_event, uint64_t), event_sync)                                                      \
    X("zeEventQueryStatus", (zt_event), event_query)                                                                   \
    X("zeEventHostReset", (zt_event), event_reset)                                                                     \
    X("zeModuleCreate", (zt_context, zt_device, const zt_module_desc *, zt_module *, void **), module_create)          \
    X("zeModuleDestroy", (zt_module), module_destroy)                                                                  \
    X("zeKernelCreate", (zt_module, const zt_kernel_desc *, zt_kernel *), kernel_create)                               \
    X("zeKernelDestroy", (zt_kernel), kernel_destroy)                                                                  \
    X("zeKernelSetArgumentValue", (zt_kernel, uint32_t, size_t, const void *), kernel_arg)                             \
    X("zeKernelSetGroupSize", (zt_kernel, uint32_t, uint32_t, uint32_t), kernel_group)                                 \
    X("zeKernelSuggestGroupSize", (zt_kernel, uint32_t, uint32_t, uint32_t, uint32_t *, uint32_t *, uint32_t *),       \
      kernel_suggest)                                                                                                  \
    X("zeDriverGetExtensionFunctionAddress", (zt_driver, const char *, void **), driver_ext_fn)

#endif
