/* version.h - rafale's version: --version prints it, and every result
 * records it with the machine it was measured on (machine_read). */
#ifndef RAFALE_VERSION_H
#define RAFALE_VERSION_H

#define RAFALE_VERSION "0.2.0"

#endif
