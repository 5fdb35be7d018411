// SPDX-License-Identifier: GPL-2.0-only
#include <string.h>

#include "arch/switches.h"

struct lab_switches lab_sw;
enum contpte_full_mode contpte_full_mode;

static const char *const names[] = {
#define X(name, ref_only, help) #name,
	LAB_SWITCHES(X)
#undef X
};

static const bool ref_only[] = {
#define X(name, ref_only, help) ref_only,
	LAB_SWITCHES(X)
#undef X
};

static const char *const helps[] = {
#define X(name, ref_only, help) help,
	LAB_SWITCHES(X)
#undef X
};

void lab_switches_reset(void)
{
#define X(name, ref_only, help) lab_sw.name = true;
	LAB_SWITCHES(X)
#undef X
	contpte_full_mode = CONTPTE_FULL_NONE;
}

int lab_nr_switches(void)
{
	return (int)ARRAY_SIZE(names);
}

const char *lab_switch_help(int i, const char **name)
{
	*name = names[i];
	return helps[i];
}

/* Accept the command-line spelling with dashes. */
int lab_switch_index(const char *name)
{
	char buf[64];
	size_t n = strlen(name);

	if (n >= sizeof(buf))
		return -1;
	for (size_t i = 0; i <= n; i++)
		buf[i] = name[i] == '-' ? '_' : name[i];
	for (int i = 0; i < lab_nr_switches(); i++)
		if (!strcmp(buf, names[i]))
			return i;
	return -1;
}

int lab_switch_off(const char *name)
{
	int i = lab_switch_index(name);

	if (i >= 0)
		((bool *)&lab_sw)[i] = false;
	return i;
}

bool lab_switch_ref_only(const char *name)
{
	int i = lab_switch_index(name);

	return i >= 0 && ref_only[i];
}
