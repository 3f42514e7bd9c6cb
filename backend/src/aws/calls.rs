//! One method per EC2 call. Each asks through the cache and turns the SDK's answer into
//! plain data at once, so nothing past this file sees SDK types. "Does not exist" is an
//! answer (`None`), not an error: it is cached like any other answer.

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use aws_sdk_ec2::config::http::HttpResponse;
use aws_sdk_ec2::error::{DisplayErrorContext, ProvideErrorMetadata, SdkError};
use aws_sdk_ec2::primitives::{DateTime, DateTimeFormat};
use aws_sdk_ec2::types::{Filter, InstanceType, LocationType};
use serde::{Deserialize, Serialize};
use shared::catalog::versions::Date;
use shared::model::ids::Region;
use shared::rules::{ClusterVersionFact, PlacementGroupFact, ReservationFact, SubnetFact};

use super::cache::AnswerCache;
use super::{AwsError, LiveAws};

/// An availability zone: name and id (`us-east-1a` ↔ `use1-az6`; the mapping differs per account).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Zone {
    /// Zone name, e.g. `us-east-1a`.
    pub name: String,
    /// Zone id, e.g. `use1-az6`.
    pub id: String,
    /// `available`, …
    pub state: String,
}

/// What EC2 says about an instance type (DescribeInstanceTypes).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct InstanceTypeFacts {
    /// Instance type.
    pub instance_type: String,
    /// Elastic Fabric Adapter support.
    pub efa_supported: bool,
    /// Most EFA interfaces an instance can have.
    pub efa_interfaces: u32,
    /// GPUs per instance.
    pub gpu_count: u32,
    /// GPU model, e.g. `H100`.
    pub gpu_name: Option<String>,
    /// Memory of one GPU, MiB.
    pub gpu_memory_mib: Option<u32>,
    /// Neuron accelerators per instance (Trainium, Inferentia).
    pub neuron_count: u32,
    /// vCPUs.
    pub vcpus: u32,
    /// Memory, MiB.
    pub memory_mib: u64,
    /// Network cards; 0 when EC2 does not say.
    pub network_cards: u32,
}

impl InstanceTypeFacts {
    /// The part the shared rules read.
    pub fn fact(&self) -> shared::rules::InstanceTypeFact {
        shared::rules::InstanceTypeFact {
            instance_type: self.instance_type.clone(),
            efa_supported: self.efa_supported,
            efa_interfaces: self.efa_interfaces,
            gpu_count: self.gpu_count,
            gpu_memory_mib: self.gpu_memory_mib,
            neuron_count: self.neuron_count,
            network_cards: self.network_cards,
        }
    }
}

/// A capacity reservation (ODCR or Capacity Block) as EC2 describes it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reservation {
    /// The part the shared rules read.
    #[serde(flatten)]
    pub fact: ReservationFact,
    /// Zone id of its zone.
    pub availability_zone_id: Option<String>,
    /// `Linux/UNIX`, …
    pub instance_platform: Option<String>,
    /// `open` or `targeted`.
    pub instance_match_criteria: Option<String>,
}

/// A VPC.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Vpc {
    /// `vpc-…`.
    pub id: String,
    /// Primary IPv4 block.
    pub cidr_block: Option<String>,
    /// `available` or `pending`.
    pub state: Option<String>,
}

/// A subnet.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Subnet {
    /// The part the shared rules read.
    #[serde(flatten)]
    pub fact: SubnetFact,
    /// Zone id.
    pub availability_zone_id: Option<String>,
    /// IPv4 block.
    pub cidr_block: Option<String>,
}

/// A Spot placement score for a set of instance types, in a zone or the whole region.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpotScore {
    /// Zone id, or none for the region.
    pub availability_zone_id: Option<String>,
    /// 1 to 10.
    pub score: u32,
}

/// The latest Spot price of an instance type in a zone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct SpotPrice {
    /// Instance type.
    pub instance_type: String,
    /// Zone name.
    pub availability_zone: String,
    /// US dollars per hour, as EC2 wrote it.
    pub price_per_hour: String,
    /// When the price was set (RFC 3339).
    pub timestamp: Option<String>,
}

impl SpotPrice {
    /// The price as the shared rules and the page read it.
    pub fn fact(&self) -> shared::rules::SpotPriceFact {
        shared::rules::SpotPriceFact {
            instance_type: self.instance_type.clone(),
            availability_zone: self.availability_zone.clone(),
            price_per_hour: self.price_per_hour.clone(),
        }
    }
}

/// A search for Capacity Block offerings (DescribeCapacityBlockOfferings).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct CapacityBlockQuery {
    /// Instance type, e.g. `p5.48xlarge`.
    pub instance_type: String,
    /// Instances in the block.
    pub instance_count: u32,
    /// Length of the block, hours (EC2 offers 24-hour steps up to 182 days).
    pub duration_hours: u32,
    /// Earliest start (RFC 3339), if any.
    #[serde(default)]
    pub start_after: Option<String>,
    /// Latest end (RFC 3339), if any.
    #[serde(default)]
    pub end_before: Option<String>,
    /// An UltraServer type (`u-p6e-gb200x72`): EC2 sells those types only as whole
    /// UltraServers, so the search asks for them instead of an instance type and count.
    #[serde(default)]
    pub ultraserver_type: Option<String>,
    /// UltraServers in the block, with `ultraserver_type`.
    #[serde(default)]
    pub ultraserver_count: Option<u32>,
}

impl CapacityBlockQuery {
    /// The searches that find Capacity Blocks of `instance_type` for a day: by the type
    /// for one instance, or, for a type EC2 sells only in UltraServers, one search per
    /// UltraServer type for one UltraServer.
    pub fn for_a_day(instance_type: &str) -> Vec<CapacityBlockQuery> {
        let day =
            |ultraserver: Option<&shared::catalog::instances::UltraServer>| CapacityBlockQuery {
                instance_type: instance_type.to_owned(),
                instance_count: ultraserver.map_or(1, |ultraserver| ultraserver.instances),
                duration_hours: 24,
                start_after: None,
                end_before: None,
                ultraserver_type: ultraserver.map(|ultraserver| ultraserver.name.to_owned()),
                ultraserver_count: ultraserver.map(|_| 1),
            };
        let ultraservers: Vec<_> =
            shared::catalog::instances::ultraservers_of(instance_type).collect();
        if ultraservers.is_empty() {
            vec![day(None)]
        } else {
            ultraservers.into_iter().map(Some).map(day).collect()
        }
    }

    /// What it asks for, in words: `2 × p5.48xlarge` or `1 × u-p6e-gb200x36`.
    pub fn asked(&self) -> String {
        match &self.ultraserver_type {
            Some(ultraserver) => format!("{} × {ultraserver}", self.ultraserver_count.unwrap_or(1)),
            None => format!("{} × {}", self.instance_count, self.instance_type),
        }
    }

    /// What is wrong with the query before EC2 sees it, if anything.
    pub fn problem(&self) -> Option<String> {
        if let Some(ultraserver) = &self.ultraserver_type {
            if ultraserver.trim().is_empty() {
                return Some("ultraserver_type is empty".to_owned());
            }
            if self.ultraserver_count == Some(0) || self.duration_hours == 0 {
                return Some("ultraserver_count and duration_hours must be at least 1".to_owned());
            }
        } else if self.instance_type.trim().is_empty() {
            return Some("instance_type is empty".to_owned());
        } else if self.instance_count == 0 || self.duration_hours == 0 {
            return Some("instance_count and duration_hours must be at least 1".to_owned());
        }
        [
            ("start_after", &self.start_after),
            ("end_before", &self.end_before),
        ]
        .into_iter()
        .find_map(|(what, date)| {
            let date = date.as_deref()?;
            parse_date(date, what).err()
        })
    }
}

/// One Capacity Block that can be bought.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CapacityBlockOffering {
    /// Offering id, used to purchase it.
    pub id: String,
    /// Instance type.
    pub instance_type: String,
    /// Zone name.
    pub availability_zone: String,
    /// Instances in the block.
    pub instance_count: u32,
    /// Start (RFC 3339).
    pub start_date: Option<String>,
    /// End (RFC 3339).
    pub end_date: Option<String>,
    /// Length, hours.
    pub duration_hours: u32,
    /// Price for the whole block.
    pub upfront_fee: Option<String>,
    /// Currency of the fee.
    pub currency: Option<String>,
    /// The UltraServer type, for a block of UltraServers.
    pub ultraserver_type: Option<String>,
    /// UltraServers in the block.
    pub ultraserver_count: Option<u32>,
}

fn rfc3339(date: Option<&DateTime>) -> Option<String> {
    date.and_then(|date| date.fmt(DateTimeFormat::DateTime).ok())
}

fn count(value: Option<i32>) -> u32 {
    value
        .and_then(|value| u32::try_from(value).ok())
        .unwrap_or(0)
}

fn parse_date(text: &str, what: &str) -> Result<DateTime, String> {
    DateTime::from_str(text, DateTimeFormat::DateTime)
        .map_err(|error| format!("{what} `{text}` is not an RFC 3339 date: {error}"))
}

/// The last error in a source chain, e.g. `Connection refused (os error 111)`: the
/// layers above it ("dispatch failure", "io error", …) say nothing a user can act on.
fn innermost_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(source) = cause.source() {
        cause = source;
    }
    cause.to_string()
}

/// EC2 error codes that mean "there is no such thing".
fn means_missing(code: Option<&str>) -> bool {
    code.is_some_and(|code| code.ends_with(".NotFound") || code.ends_with(".Malformed"))
}

impl LiveAws {
    fn call_error<E>(
        &self,
        call: &'static str,
        region: &Region,
        error: SdkError<E, HttpResponse>,
    ) -> AwsError
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        self.service_error("ec2", call, region, error)
    }

    pub(super) fn service_error<E>(
        &self,
        service: &str,
        call: &'static str,
        region: &Region,
        error: SdkError<E, HttpResponse>,
    ) -> AwsError
    where
        E: ProvideErrorMetadata + std::error::Error + 'static,
    {
        let seconds = self.inner.options.call_timeout.as_secs_f64();
        match &error {
            SdkError::TimeoutError(_) => AwsError::Timeout { call, seconds },
            SdkError::DispatchFailure(failure) if failure.is_timeout() => {
                AwsError::Timeout { call, seconds }
            }
            SdkError::DispatchFailure(_) => AwsError::Unreachable {
                call,
                endpoint: self.endpoint_for_errors(service, region),
                detail: innermost_cause(&error),
            },
            SdkError::ServiceError(service) => {
                let status = service.raw().status().as_u16();
                AwsError::Refused {
                    call,
                    code: error
                        .code()
                        .map_or_else(|| format!("HTTP {status}"), str::to_owned),
                    message: error
                        .message()
                        .unwrap_or("the answer carried no message")
                        .to_owned(),
                }
            }
            _ => AwsError::Failed {
                call,
                detail: DisplayErrorContext(&error).to_string(),
            },
        }
    }

    /// Every zone of the region with its id (DescribeAvailabilityZones).
    pub async fn zones(&self, region: &Region) -> Result<Arc<Vec<Zone>>, AwsError> {
        const CALL: &str = "DescribeAvailabilityZones";
        let client = self.client(region)?;
        let fetch = async {
            let output = client
                .describe_availability_zones()
                .send()
                .await
                .map_err(|error| self.call_error(CALL, region, error))?;
            let zones = output
                .availability_zones()
                .iter()
                .map(|zone| Zone {
                    name: zone.zone_name().unwrap_or_default().to_owned(),
                    id: zone.zone_id().unwrap_or_default().to_owned(),
                    state: zone
                        .state()
                        .map(|state| state.as_str().to_owned())
                        .unwrap_or_default(),
                })
                .collect();
            Ok(Arc::new(zones))
        };
        self.inner
            .caches
            .zones
            .get_or_fetch(region.as_str(), fetch)
            .await
    }

    /// Every (instance type, location) pair DescribeInstanceTypeOfferings answers in
    /// `region` by `location_type`, over every page; only for `instance_types` when given.
    async fn type_offerings(
        &self,
        client: &aws_sdk_ec2::Client,
        region: &Region,
        location_type: LocationType,
        instance_types: Option<&[String]>,
    ) -> Result<Vec<(String, String)>, AwsError> {
        const CALL: &str = "DescribeInstanceTypeOfferings";
        let mut request = client
            .describe_instance_type_offerings()
            .location_type(location_type);
        if let Some(instance_types) = instance_types {
            request = request.filters(
                Filter::builder()
                    .name("instance-type")
                    .set_values(Some(instance_types.to_vec()))
                    .build(),
            );
        }
        let offerings = request
            .into_paginator()
            .items()
            .send()
            .collect::<Result<Vec<_>, _>>()
            .await
            .map_err(|error| self.call_error(CALL, region, error))?;
        Ok(offerings
            .iter()
            .filter_map(|offering| {
                let instance_type = offering.instance_type()?.as_str().to_owned();
                Some((instance_type, offering.location()?.to_owned()))
            })
            .collect())
    }

    /// Names of the zones where the type is offered (DescribeInstanceTypeOfferings by zone).
    pub async fn offered_zones(
        &self,
        region: &Region,
        instance_type: &str,
    ) -> Result<Arc<Vec<String>>, AwsError> {
        let client = self.client(region)?;
        let fetch = async {
            let asked = [instance_type.to_owned()];
            let found = self
                .type_offerings(
                    &client,
                    region,
                    LocationType::AvailabilityZone,
                    Some(&asked),
                )
                .await?;
            let mut zones: Vec<String> = found.into_iter().map(|(_, zone)| zone).collect();
            zones.sort();
            zones.dedup();
            Ok(Arc::new(zones))
        };
        self.inner
            .caches
            .offerings
            .get_or_fetch((region.as_str(), instance_type.to_owned()), fetch)
            .await
    }

    /// Where each of several types is offered, by zone name, in one paginated
    /// DescribeInstanceTypeOfferings per hundred types (a NodePool may allow dozens).
    /// Types offered nowhere have an empty list.
    pub async fn offered_zones_of(
        &self,
        region: &Region,
        instance_types: &[String],
    ) -> Result<Arc<Vec<TypeZones>>, AwsError> {
        let client = self.client(region)?;
        let fetch = async {
            let mut by_type: std::collections::BTreeMap<String, Vec<String>> = instance_types
                .iter()
                .map(|instance_type| (instance_type.clone(), Vec::new()))
                .collect();
            for chunk in instance_types.chunks(100) {
                let found = self
                    .type_offerings(&client, region, LocationType::AvailabilityZone, Some(chunk))
                    .await?;
                for (instance_type, zone) in found {
                    if let Some(zones) = by_type.get_mut(instance_type.as_str()) {
                        zones.push(zone);
                    }
                }
            }
            for zones in by_type.values_mut() {
                zones.sort();
                zones.dedup();
            }
            Ok(Arc::new(by_type.into_iter().collect()))
        };
        self.inner
            .caches
            .offerings_of
            .get_or_fetch((region.as_str(), instance_types.to_vec()), fetch)
            .await
    }

    /// Every instance type offered in some zone of the region, with those zones
    /// (DescribeInstanceTypeOfferings by zone, unfiltered, every page): the picker's answer
    /// to "is this type offered where my design runs?".
    pub async fn offerings_in_region(
        &self,
        region: &Region,
    ) -> Result<Arc<Vec<TypeZones>>, AwsError> {
        let client = self.client(region)?;
        let fetch = async {
            let found = self
                .type_offerings(&client, region, LocationType::AvailabilityZone, None)
                .await?;
            let mut by_type: std::collections::BTreeMap<String, Vec<String>> =
                std::collections::BTreeMap::new();
            for (instance_type, zone) in found {
                by_type.entry(instance_type).or_default().push(zone);
            }
            for zones in by_type.values_mut() {
                zones.sort();
                zones.dedup();
            }
            Ok(Arc::new(by_type.into_iter().collect()))
        };
        self.inner
            .caches
            .region_offerings
            .get_or_fetch(region.as_str(), fetch)
            .await
    }

    /// The regions this account can use (DescribeRegions, asked in `region`).
    pub async fn regions(&self, region: &Region) -> Result<Arc<Vec<String>>, AwsError> {
        const CALL: &str = "DescribeRegions";
        let client = self.client(region)?;
        let fetch = async {
            let output = client
                .describe_regions()
                .send()
                .await
                .map_err(|error| self.call_error(CALL, region, error))?;
            let mut names: Vec<String> = output
                .regions()
                .iter()
                .filter_map(|found| found.region_name().map(str::to_owned))
                .collect();
            names.sort();
            Ok(Arc::new(names))
        };
        self.inner
            .caches
            .regions
            .get_or_fetch(region.as_str(), fetch)
            .await
    }

    /// Which of `instance_types` the region offers at all (DescribeInstanceTypeOfferings
    /// by region).
    pub async fn offered_in_region(
        &self,
        region: &Region,
        instance_types: &[String],
    ) -> Result<Arc<Vec<String>>, AwsError> {
        let client = self.client(region)?;
        let fetch = async {
            let found = self
                .type_offerings(&client, region, LocationType::Region, Some(instance_types))
                .await?;
            let mut offered: Vec<String> = found
                .into_iter()
                .map(|(instance_type, _)| instance_type)
                .collect();
            offered.sort();
            offered.dedup();
            Ok(Arc::new(offered))
        };
        self.inner
            .caches
            .offered_in_region
            .get_or_fetch((region.as_str(), instance_types.to_vec()), fetch)
            .await
    }

    /// The type's facts, or `None` when EC2 does not know the type (DescribeInstanceTypes).
    pub async fn instance_type_facts(
        &self,
        region: &Region,
        instance_type: &str,
    ) -> Result<Option<InstanceTypeFacts>, AwsError> {
        const CALL: &str = "DescribeInstanceTypes";
        let client = self.client(region)?;
        let fetch = async {
            let output = match client
                .describe_instance_types()
                .instance_types(InstanceType::from(instance_type))
                .send()
                .await
            {
                Ok(output) => output,
                Err(error)
                    if error
                        .code()
                        .is_some_and(|code| code.starts_with("InvalidInstanceType")) =>
                {
                    return Ok(None);
                }
                Err(error) => return Err(self.call_error(CALL, region, error)),
            };
            let Some(info) = output.instance_types().first() else {
                return Ok(None);
            };
            let network = info.network_info();
            let gpus = info.gpu_info().map(|gpu| gpu.gpus()).unwrap_or_default();
            let neurons = info
                .neuron_info()
                .map(|neuron| neuron.neuron_devices())
                .unwrap_or_default();
            Ok(Some(InstanceTypeFacts {
                instance_type: instance_type.to_owned(),
                efa_supported: network
                    .and_then(|network| network.efa_supported())
                    .unwrap_or(false),
                efa_interfaces: count(
                    network
                        .and_then(|network| network.efa_info())
                        .and_then(|efa| efa.maximum_efa_interfaces()),
                ),
                gpu_count: gpus.iter().map(|gpu| count(gpu.count())).sum(),
                gpu_name: gpus.first().and_then(|gpu| gpu.name()).map(str::to_owned),
                gpu_memory_mib: gpus
                    .first()
                    .and_then(|gpu| gpu.memory_info())
                    .and_then(|memory| memory.size_in_mib())
                    .and_then(|size| u32::try_from(size).ok()),
                neuron_count: neurons.iter().map(|device| count(device.count())).sum(),
                vcpus: count(info.v_cpu_info().and_then(|cpu| cpu.default_v_cpus())),
                memory_mib: info
                    .memory_info()
                    .and_then(|memory| memory.size_in_mib())
                    .and_then(|size| u64::try_from(size).ok())
                    .unwrap_or(0),
                network_cards: count(network.and_then(|network| network.maximum_network_cards())),
            }))
        };
        self.inner
            .caches
            .instance_types
            .get_or_fetch((region.as_str(), instance_type.to_owned()), fetch)
            .await
    }

    /// The reservation, or `None` when it does not exist (DescribeCapacityReservations).
    pub async fn reservation(
        &self,
        region: &Region,
        reservation_id: &str,
    ) -> Result<Option<Reservation>, AwsError> {
        const CALL: &str = "DescribeCapacityReservations";
        let client = self.client(region)?;
        let fetch = async {
            let output = match client
                .describe_capacity_reservations()
                .capacity_reservation_ids(reservation_id)
                .send()
                .await
            {
                Ok(output) => output,
                Err(error) if means_missing(error.code()) => return Ok(None),
                Err(error) => return Err(self.call_error(CALL, region, error)),
            };
            Ok(output
                .capacity_reservations()
                .iter()
                .find(|found| found.capacity_reservation_id() == Some(reservation_id))
                .map(|found| Reservation {
                    fact: ReservationFact {
                        id: reservation_id.to_owned(),
                        instance_type: found.instance_type().unwrap_or_default().to_owned(),
                        availability_zone: found.availability_zone().unwrap_or_default().to_owned(),
                        state: found
                            .state()
                            .map(|state| state.as_str().to_owned())
                            .unwrap_or_default(),
                        reservation_type: found
                            .reservation_type()
                            .map(|kind| kind.as_str().to_owned())
                            .unwrap_or_else(|| "default".to_owned()),
                        total_instances: count(found.total_instance_count()),
                        available_instances: count(found.available_instance_count()),
                        start_date: rfc3339(found.start_date()),
                        end_date: rfc3339(found.end_date()),
                    },
                    availability_zone_id: found.availability_zone_id().map(str::to_owned),
                    instance_platform: found
                        .instance_platform()
                        .map(|platform| platform.as_str().to_owned()),
                    instance_match_criteria: found
                        .instance_match_criteria()
                        .map(|criteria| criteria.as_str().to_owned()),
                }))
        };
        self.inner
            .caches
            .reservations
            .get_or_fetch((region.as_str(), reservation_id.to_owned()), fetch)
            .await
    }

    /// Every Kubernetes version EKS lists in the region, of every status, with its dates
    /// (EKS DescribeClusterVersions with `includeAll`).
    pub async fn cluster_versions(
        &self,
        region: &Region,
    ) -> Result<Arc<Vec<ClusterVersionFact>>, AwsError> {
        const CALL: &str = "DescribeClusterVersions";
        let client = self.eks_client(region)?;
        let fetch = async {
            let listed = client
                .describe_cluster_versions()
                .include_all(true)
                .into_paginator()
                .send()
                .collect::<Result<Vec<_>, _>>()
                .await
                .map_err(|error| self.service_error("eks", CALL, region, error))?;
            let day = |time: Option<&aws_sdk_eks::primitives::DateTime>| {
                time.map(|time| Date::from_days_since_epoch(time.secs().div_euclid(86_400)))
            };
            let versions = listed
                .iter()
                .flat_map(|page| page.cluster_versions())
                .filter_map(|version| {
                    Some(ClusterVersionFact {
                        version: version.cluster_version()?.to_owned(),
                        status: version
                            .version_status()
                            .map(|status| status.as_str().to_owned())
                            .unwrap_or_default(),
                        end_of_standard_support: day(version.end_of_standard_support_date()),
                        end_of_extended_support: day(version.end_of_extended_support_date()),
                    })
                })
                .collect();
            Ok(Arc::new(versions))
        };
        self.inner
            .caches
            .cluster_versions
            .get_or_fetch(region.as_str(), fetch)
            .await
    }

    /// The VPC, or `None` when it does not exist (DescribeVpcs).
    pub async fn vpc(&self, region: &Region, vpc_id: &str) -> Result<Option<Vpc>, AwsError> {
        const CALL: &str = "DescribeVpcs";
        let client = self.client(region)?;
        let fetch = async {
            let output = match client.describe_vpcs().vpc_ids(vpc_id).send().await {
                Ok(output) => output,
                Err(error) if means_missing(error.code()) => return Ok(None),
                Err(error) => return Err(self.call_error(CALL, region, error)),
            };
            Ok(output
                .vpcs()
                .iter()
                .find(|vpc| vpc.vpc_id() == Some(vpc_id))
                .map(|vpc| Vpc {
                    id: vpc_id.to_owned(),
                    cidr_block: vpc.cidr_block().map(str::to_owned),
                    state: vpc.state().map(|state| state.as_str().to_owned()),
                }))
        };
        self.inner
            .caches
            .vpcs
            .get_or_fetch((region.as_str(), vpc_id.to_owned()), fetch)
            .await
    }

    /// The placement group with this name (or `pg-` id), or `None` when there is none
    /// (DescribePlacementGroups).
    pub async fn placement_group(
        &self,
        region: &Region,
        name_or_id: &str,
    ) -> Result<Option<PlacementGroupFact>, AwsError> {
        const CALL: &str = "DescribePlacementGroups";
        let client = self.client(region)?;
        let by_id = shared::upstream::karpenter::is_placement_group_id(name_or_id);
        let fetch = async {
            let request = client.describe_placement_groups();
            let request = if by_id {
                request.group_ids(name_or_id)
            } else {
                request.group_names(name_or_id)
            };
            let output = match request.send().await {
                Ok(output) => output,
                // An unknown name is `InvalidPlacementGroup.Unknown`; an unknown id, a
                // `.NotFound` or `.Malformed` code.
                Err(error)
                    if means_missing(error.code())
                        || error.code().is_some_and(|code| code.ends_with(".Unknown")) =>
                {
                    return Ok(None);
                }
                Err(error) => return Err(self.call_error(CALL, region, error)),
            };
            Ok(output
                .placement_groups()
                .iter()
                .find(|group| {
                    group.group_name() == Some(name_or_id) || group.group_id() == Some(name_or_id)
                })
                .map(|group| PlacementGroupFact {
                    name: group.group_name().unwrap_or_default().to_owned(),
                    id: group.group_id().unwrap_or_default().to_owned(),
                    strategy: group
                        .strategy()
                        .map(|strategy| strategy.as_str().to_owned())
                        .unwrap_or_default(),
                    state: group
                        .state()
                        .map(|state| state.as_str().to_owned())
                        .unwrap_or_default(),
                }))
        };
        self.inner
            .caches
            .placement_groups
            .get_or_fetch((region.as_str(), name_or_id.to_owned()), fetch)
            .await
    }

    /// The subnet, or `None` when it does not exist (DescribeSubnets).
    pub async fn subnet(
        &self,
        region: &Region,
        subnet_id: &str,
    ) -> Result<Option<Subnet>, AwsError> {
        const CALL: &str = "DescribeSubnets";
        let client = self.client(region)?;
        let fetch = async {
            let output = match client.describe_subnets().subnet_ids(subnet_id).send().await {
                Ok(output) => output,
                Err(error) if means_missing(error.code()) => return Ok(None),
                Err(error) => return Err(self.call_error(CALL, region, error)),
            };
            Ok(output
                .subnets()
                .iter()
                .find(|subnet| subnet.subnet_id() == Some(subnet_id))
                .map(|subnet| Subnet {
                    fact: SubnetFact {
                        id: subnet_id.to_owned(),
                        vpc_id: subnet.vpc_id().unwrap_or_default().to_owned(),
                        availability_zone: subnet
                            .availability_zone()
                            .unwrap_or_default()
                            .to_owned(),
                        available_addresses: count(subnet.available_ip_address_count()),
                    },
                    availability_zone_id: subnet.availability_zone_id().map(str::to_owned),
                    cidr_block: subnet.cidr_block().map(str::to_owned),
                }))
        };
        self.inner
            .caches
            .subnets
            .get_or_fetch((region.as_str(), subnet_id.to_owned()), fetch)
            .await
    }

    /// Spot placement scores per zone for launching `target_capacity` instances of any of
    /// `instance_types` in one zone of the region (GetSpotPlacementScores).
    pub async fn spot_scores(
        &self,
        region: &Region,
        instance_types: &[String],
        target_capacity: u32,
    ) -> Result<Arc<Vec<SpotScore>>, AwsError> {
        const CALL: &str = "GetSpotPlacementScores";
        let client = self.client(region)?;
        let mut types = instance_types.to_vec();
        types.sort();
        types.dedup();
        let fetch = async {
            let mut request = client
                .get_spot_placement_scores()
                .target_capacity(i32::try_from(target_capacity.max(1)).unwrap_or(i32::MAX))
                .single_availability_zone(true)
                .region_names(region.as_str());
            for instance_type in &types {
                request = request.instance_types(instance_type);
            }
            let scores = request
                .into_paginator()
                .items()
                .send()
                .collect::<Result<Vec<_>, _>>()
                .await
                .map_err(|error| self.call_error(CALL, region, error))?;
            Ok(Arc::new(
                scores
                    .iter()
                    .filter(|score| score.region().is_none_or(|name| name == region.as_str()))
                    .map(|score| SpotScore {
                        availability_zone_id: score.availability_zone_id().map(str::to_owned),
                        score: count(score.score()),
                    })
                    .collect(),
            ))
        };
        self.inner
            .caches
            .spot_scores
            .get_or_fetch((region.as_str(), (types.clone(), target_capacity)), fetch)
            .await
    }

    /// The latest Linux Spot price of each type in each zone, from the last day
    /// (DescribeSpotPriceHistory).
    pub async fn spot_prices(
        &self,
        region: &Region,
        instance_types: &[String],
    ) -> Result<Arc<Vec<SpotPrice>>, AwsError> {
        const CALL: &str = "DescribeSpotPriceHistory";
        let client = self.client(region)?;
        let mut types = instance_types.to_vec();
        types.sort();
        types.dedup();
        let fetch = async {
            let since = SystemTime::now() - Duration::from_secs(24 * 60 * 60);
            let mut request = client
                .describe_spot_price_history()
                .start_time(DateTime::from(since))
                .product_descriptions("Linux/UNIX")
                .max_results(200);
            for instance_type in &types {
                request = request.instance_types(InstanceType::from(instance_type.as_str()));
            }
            let output = request
                .send()
                .await
                .map_err(|error| self.call_error(CALL, region, error))?;
            // EC2 lists the newest price first; keep one per (type, zone).
            let mut latest: Vec<SpotPrice> = Vec::new();
            for price in output.spot_price_history() {
                let instance_type = price
                    .instance_type()
                    .map(|kind| kind.as_str().to_owned())
                    .unwrap_or_default();
                let zone = price.availability_zone().unwrap_or_default().to_owned();
                if latest.iter().any(|seen| {
                    seen.instance_type == instance_type && seen.availability_zone == zone
                }) {
                    continue;
                }
                latest.push(SpotPrice {
                    instance_type,
                    availability_zone: zone,
                    price_per_hour: price.spot_price().unwrap_or_default().to_owned(),
                    timestamp: rfc3339(price.timestamp()),
                });
            }
            latest.sort_by(|a, b| {
                (&a.instance_type, &a.availability_zone)
                    .cmp(&(&b.instance_type, &b.availability_zone))
            });
            Ok(Arc::new(latest))
        };
        self.inner
            .caches
            .spot_prices
            .get_or_fetch((region.as_str(), types.clone()), fetch)
            .await
    }

    /// Capacity Blocks on offer (DescribeCapacityBlockOfferings).
    pub async fn capacity_block_offerings(
        &self,
        region: &Region,
        query: &CapacityBlockQuery,
    ) -> Result<Arc<Vec<CapacityBlockOffering>>, AwsError> {
        const CALL: &str = "DescribeCapacityBlockOfferings";
        let client = self.client(region)?;
        let date = |text: Option<&str>, what| {
            text.map(|text| parse_date(text, what))
                .transpose()
                .map_err(|detail| AwsError::Failed { call: CALL, detail })
        };
        let start_after = date(query.start_after.as_deref(), "start_after")?;
        let end_before = date(query.end_before.as_deref(), "end_before")?;
        let fetch = async {
            let int = |value: u32| i32::try_from(value).unwrap_or(i32::MAX);
            // An UltraServer search names the UltraServer, not the instances in it.
            let by_type = query.ultraserver_type.is_none();
            let offerings = client
                .describe_capacity_block_offerings()
                .set_instance_type(by_type.then(|| query.instance_type.clone()))
                .set_instance_count(by_type.then(|| int(query.instance_count)))
                .set_ultraserver_type(query.ultraserver_type.clone())
                .set_ultraserver_count(
                    query
                        .ultraserver_type
                        .as_ref()
                        .map(|_| int(query.ultraserver_count.unwrap_or(1))),
                )
                .capacity_duration_hours(int(query.duration_hours))
                .set_start_date_range(start_after)
                .set_end_date_range(end_before)
                .into_paginator()
                .items()
                .send()
                .collect::<Result<Vec<_>, _>>()
                .await
                .map_err(|error| self.call_error(CALL, region, error))?;
            let mut offerings: Vec<CapacityBlockOffering> = offerings
                .iter()
                .map(|offering| CapacityBlockOffering {
                    id: offering
                        .capacity_block_offering_id()
                        .unwrap_or_default()
                        .to_owned(),
                    instance_type: offering.instance_type().unwrap_or_default().to_owned(),
                    availability_zone: offering.availability_zone().unwrap_or_default().to_owned(),
                    instance_count: count(offering.instance_count()),
                    start_date: rfc3339(offering.start_date()),
                    end_date: rfc3339(offering.end_date()),
                    duration_hours: count(offering.capacity_block_duration_hours()),
                    upfront_fee: offering.upfront_fee().map(str::to_owned),
                    currency: offering.currency_code().map(str::to_owned),
                    ultraserver_type: offering.ultraserver_type().map(str::to_owned),
                    ultraserver_count: offering
                        .ultraserver_count()
                        .and_then(|count| u32::try_from(count).ok()),
                })
                .collect();
            offerings.sort_by(|a, b| a.start_date.cmp(&b.start_date));
            Ok(Arc::new(offerings))
        };
        self.inner
            .caches
            .block_offerings
            .get_or_fetch((region.as_str(), query.clone()), fetch)
            .await
    }
}

/// (region, argument) keys.
type Keyed<A> = (&'static str, A);
/// Spot scores are asked for a set of types and a target capacity.
type SpotScoreKey = Keyed<(Vec<String>, u32)>;

/// An instance type and the names of the zones it is offered in.
pub type TypeZones = (String, Vec<String>);

/// Every call's cache: a new call adds its own here.
pub(crate) struct Caches {
    pub(crate) zones: AnswerCache<&'static str, Arc<Vec<Zone>>>,
    pub(crate) cluster_versions: AnswerCache<&'static str, Arc<Vec<ClusterVersionFact>>>,
    pub(crate) offerings: AnswerCache<Keyed<String>, Arc<Vec<String>>>,
    pub(crate) offerings_of: AnswerCache<Keyed<Vec<String>>, Arc<Vec<TypeZones>>>,
    pub(crate) region_offerings: AnswerCache<&'static str, Arc<Vec<TypeZones>>>,
    pub(crate) regions: AnswerCache<&'static str, Arc<Vec<String>>>,
    pub(crate) offered_in_region: AnswerCache<Keyed<Vec<String>>, Arc<Vec<String>>>,
    pub(crate) instance_types: AnswerCache<Keyed<String>, Option<InstanceTypeFacts>>,
    pub(crate) reservations: AnswerCache<Keyed<String>, Option<Reservation>>,
    pub(crate) vpcs: AnswerCache<Keyed<String>, Option<Vpc>>,
    pub(crate) placement_groups: AnswerCache<Keyed<String>, Option<PlacementGroupFact>>,
    pub(crate) subnets: AnswerCache<Keyed<String>, Option<Subnet>>,
    pub(crate) spot_scores: AnswerCache<SpotScoreKey, Arc<Vec<SpotScore>>>,
    pub(crate) spot_prices: AnswerCache<Keyed<Vec<String>>, Arc<Vec<SpotPrice>>>,
    pub(crate) block_offerings:
        AnswerCache<Keyed<CapacityBlockQuery>, Arc<Vec<CapacityBlockOffering>>>,
    /// DescribeAddonVersions, by add-on name and Kubernetes version.
    pub(crate) addon_versions: AnswerCache<Keyed<(String, String)>, Arc<Vec<String>>>,
}

impl Caches {
    pub(crate) fn new(lifetime: Duration) -> Caches {
        Caches {
            zones: AnswerCache::new(lifetime),
            cluster_versions: AnswerCache::new(lifetime),
            offerings: AnswerCache::new(lifetime),
            offerings_of: AnswerCache::new(lifetime),
            region_offerings: AnswerCache::new(lifetime),
            regions: AnswerCache::new(lifetime),
            offered_in_region: AnswerCache::new(lifetime),
            instance_types: AnswerCache::new(lifetime),
            reservations: AnswerCache::new(lifetime),
            vpcs: AnswerCache::new(lifetime),
            placement_groups: AnswerCache::new(lifetime),
            subnets: AnswerCache::new(lifetime),
            spot_scores: AnswerCache::new(lifetime),
            spot_prices: AnswerCache::new(lifetime),
            block_offerings: AnswerCache::new(lifetime),
            addon_versions: AnswerCache::new(lifetime),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CapacityBlockQuery;

    #[test]
    fn a_day_of_an_ultraserver_type_is_asked_as_each_of_its_ultraservers() {
        let asked: Vec<String> = CapacityBlockQuery::for_a_day("p6e-gb200.36xlarge")
            .iter()
            .map(CapacityBlockQuery::asked)
            .collect();
        assert_eq!(asked, ["1 × u-p6e-gb200x72", "1 × u-p6e-gb200x36"]);
        let p5 = CapacityBlockQuery::for_a_day("p5.48xlarge");
        assert_eq!(p5.len(), 1);
        assert_eq!(p5[0].asked(), "1 × p5.48xlarge");
        assert_eq!(p5[0].duration_hours, 24);
        assert!(p5.iter().all(|query| query.problem().is_none()));
    }
}
