/* layout.c - checks, where Level Zero's own header is installed, that the types ze_types.h declares for the backend
 * and the stand-in loader have the real layouts and values (a separate file: the real prototypes clash with ours). */
#include <stddef.h>

#include "gpu/ze/ze_types.h"

#if defined(__has_include)
#if __has_include(<level_zero/ze_api.h>)
/* where the real header is installed, the layouts declared in ze_types.h are checked against it */
#include <level_zero/ze_api.h>
#define SAME(a, b, f) _Static_assert(offsetof(a, f) == offsetof(b, f), #a "." #f)
_Static_assert(sizeof(zt_device_properties) == sizeof(ze_device_properties_t), "ze_device_properties_t");
SAME(zt_device_properties, ze_device_properties_t, name);
SAME(zt_device_properties, ze_device_properties_t, flags);
_Static_assert(sizeof(zt_queue_group_properties) == sizeof(ze_command_queue_group_properties_t), "queue group");
_Static_assert(sizeof(zt_queue_desc) == sizeof(ze_command_queue_desc_t), "ze_command_queue_desc_t");
SAME(zt_queue_desc, ze_command_queue_desc_t, mode);
_Static_assert(sizeof(zt_module_desc) == sizeof(ze_module_desc_t), "ze_module_desc_t");
SAME(zt_module_desc, ze_module_desc_t, pInputModule);
_Static_assert(sizeof(zt_event_desc) == sizeof(ze_event_desc_t), "ze_event_desc_t");
_Static_assert(sizeof(zt_event_pool_desc) == sizeof(ze_event_pool_desc_t), "ze_event_pool_desc_t");
_Static_assert(sizeof(zt_memory_allocation_properties) == sizeof(ze_memory_allocation_properties_t), "alloc props");
_Static_assert(sizeof(zt_memory_access_properties) == sizeof(ze_device_memory_access_properties_t), "access props");
SAME(zt_memory_access_properties, ze_device_memory_access_properties_t, sharedSingleDeviceAllocCapabilities);
_Static_assert(sizeof(zt_device_memory_properties) == sizeof(ze_device_memory_properties_t), "memory props");
SAME(zt_device_memory_properties, ze_device_memory_properties_t, totalSize);
_Static_assert(sizeof(zt_pci_ext_properties) == sizeof(ze_pci_ext_properties_t), "ze_pci_ext_properties_t");
_Static_assert(sizeof(zt_kernel_desc) == sizeof(ze_kernel_desc_t), "ze_kernel_desc_t");
_Static_assert(sizeof(zt_device_mem_alloc_desc) == sizeof(ze_device_mem_alloc_desc_t), "device alloc desc");
_Static_assert(sizeof(zt_copy_region) == sizeof(ze_copy_region_t), "ze_copy_region_t");
_Static_assert(sizeof(zt_ipc_handle) == sizeof(ze_ipc_mem_handle_t), "ze_ipc_mem_handle_t");
_Static_assert(sizeof(zt_driver_extension_properties) == sizeof(ze_driver_extension_properties_t), "ext props");
_Static_assert(ZE_STRUCTURE_TYPE_PCI_EXT_PROPERTIES == ZT_STYPE_PCI_EXT_PROPERTIES, "stype");
_Static_assert(ZE_RESULT_ERROR_DEVICE_LOST == ZT_ERROR_DEVICE_LOST, "result");
#endif
#endif

/* an object file may not be empty */
int fakeze_layout_checked(void);
int fakeze_layout_checked(void) { return 1; }
